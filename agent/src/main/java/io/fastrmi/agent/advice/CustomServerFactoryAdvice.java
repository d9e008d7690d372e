package io.fastrmi.agent.advice;

import io.fastrmi.fastsockets.rmi.FastRmiSocketFactory;
import net.bytebuddy.asm.Advice;

/** {@code TCPEndpoint.newServerSocket()}: notes an application's own server socket factory, which stays as it is. */
public final class CustomServerFactoryAdvice {

    private CustomServerFactoryAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.FieldValue("ssf") Object serverSocketFactory) {
        FastRmiSocketFactory.customFactoryInUse(serverSocketFactory);
    }
}
