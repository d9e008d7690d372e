package io.fastrmi.agent.advice;

import io.fastrmi.fastsockets.rmi.DgcConnections;
import java.net.Socket;
import net.bytebuddy.asm.Advice;

/**
 * {@code TCPConnection.isReusable()}: a connection FastRMI made for one DGC call says so, and RMI
 * opens it with its single-operation protocol and closes it after the call.
 */
public final class SingleCallAdvice {

    private SingleCallAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.FieldValue("socket") Socket socket, @Advice.Return(readOnly = false) boolean reusable) {
        if (reusable) {
            reusable = DgcConnections.reusable(socket);
        }
    }
}
