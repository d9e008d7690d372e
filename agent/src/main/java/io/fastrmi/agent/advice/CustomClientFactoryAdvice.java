package io.fastrmi.agent.advice;

import io.fastrmi.fastsockets.rmi.FastRmiSocketFactory;
import net.bytebuddy.asm.Advice;

/** {@code TCPEndpoint.newSocket()}: notes an application's own client socket factory, which stays as it is. */
public final class CustomClientFactoryAdvice {

    private CustomClientFactoryAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.FieldValue("csf") Object clientSocketFactory) {
        FastRmiSocketFactory.customFactoryInUse(clientSocketFactory);
    }
}
