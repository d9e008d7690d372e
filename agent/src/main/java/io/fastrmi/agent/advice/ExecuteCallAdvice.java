package io.fastrmi.agent.advice;

import io.fastrmi.agent.bootstrap.RmiCalls;
import net.bytebuddy.asm.Advice;

/** {@code StreamRemoteCall.executeCall()}: the client call in progress is sent on this connection. */
public final class ExecuteCallAdvice {

    private ExecuteCallAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.FieldValue("conn") Object connection) {
        RmiCalls.clientConnection(connection);
    }
}
