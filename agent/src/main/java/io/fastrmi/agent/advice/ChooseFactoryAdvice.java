package io.fastrmi.agent.advice;

import io.fastrmi.fastsockets.rmi.FastRmiSocketFactory;
import java.rmi.server.RMISocketFactory;
import net.bytebuddy.asm.Advice;

/**
 * {@code TCPEndpoint.chooseFactory()}: the factory RMI uses where the application set none, which
 * FastRMI's replaces. An application's global factory is kept.
 */
public final class ChooseFactoryAdvice {

    private ChooseFactoryAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    static void exit(@Advice.Return(readOnly = false) RMISocketFactory factory) {
        factory = FastRmiSocketFactory.choose(factory);
    }
}
