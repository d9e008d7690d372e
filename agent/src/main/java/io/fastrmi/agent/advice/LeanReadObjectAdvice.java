package io.fastrmi.agent.advice;

import io.fastrmi.optrmi.lean.LeanObjectInput;
import java.io.IOException;
import net.bytebuddy.asm.Advice;

/**
 * {@code ObjectInputStream.readObject(Class)}, private, under the final {@code readObject()} and the
 * {@code readString()} RMI's registry uses: a lean RMI stream reads the object itself.
 */
public final class LeanReadObjectAdvice {

    private LeanReadObjectAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static LeanObjectInput enter(@Advice.This Object stream) {
        return stream instanceof LeanObjectInput lean ? lean : null;
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter LeanObjectInput lean, @Advice.Argument(0) Class<?> type,
            @Advice.Return(readOnly = false) Object result) throws IOException, ClassNotFoundException {
        if (lean != null) {
            result = lean.leanReadObject(type);
        }
    }
}
