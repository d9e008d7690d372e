package io.fastrmi.agent.advice;

import io.fastrmi.agent.bootstrap.LeanStreams;
import java.io.IOException;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** {@code StreamRemoteCall.getOutputStream(boolean)}: on a lean connection, the call's stream is the connection's lean one. */
public final class LeanOutputAdvice {

    private LeanOutputAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    static Object enter(@Advice.FieldValue("conn") Object connection, @Advice.FieldValue("out") Object current,
            @Advice.Argument(0) boolean resultStream) throws IOException {
        return current == null ? LeanStreams.beginOutput(connection, resultStream) : null;
    }

    @Advice.OnMethodExit
    static void exit(@Advice.Enter Object lean,
            @Advice.FieldValue(value = "out", readOnly = false, typing = Assigner.Typing.DYNAMIC) Object out,
            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
        if (lean != null) {
            out = lean;
            returned = lean;
        }
    }
}
