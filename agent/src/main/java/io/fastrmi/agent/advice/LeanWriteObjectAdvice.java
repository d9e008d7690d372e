package io.fastrmi.agent.advice;

import io.fastrmi.optrmi.lean.LeanObjectOutput;
import java.io.IOException;
import net.bytebuddy.asm.Advice;

/** {@code ObjectOutputStream.writeObject(Object)}, final: a lean RMI stream writes the object itself. */
public final class LeanWriteObjectAdvice {

    private LeanWriteObjectAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static boolean enter(@Advice.This Object stream, @Advice.Argument(0) Object obj) throws IOException {
        if (stream instanceof LeanObjectOutput lean) {
            lean.leanWriteObject(obj);
            return true;
        }
        return false;
    }
}
