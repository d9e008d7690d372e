package io.fastrmi.agent.advice;

import io.fastrmi.agent.bootstrap.LeanStreams;
import java.io.IOException;
import java.io.ObjectInputFilter;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** {@code StreamRemoteCall.getInputStream()}: on a lean connection, the call's stream is the connection's lean one. */
public final class LeanInputAdvice {

    private LeanInputAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.FieldValue("conn") Object connection, @Advice.FieldValue("in") Object current,
            @Advice.FieldValue("filter") ObjectInputFilter filter) throws IOException {
        return current == null ? LeanStreams.beginInput(connection, filter) : null;
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter Object lean,
            @Advice.FieldValue(value = "in", readOnly = false, typing = Assigner.Typing.DYNAMIC) Object in,
            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
        if (lean != null) {
            in = lean;
            returned = lean;
        }
    }
}
