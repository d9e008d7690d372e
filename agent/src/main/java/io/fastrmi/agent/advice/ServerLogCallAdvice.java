package io.fastrmi.agent.advice;

import io.fastrmi.agent.bootstrap.RmiCalls;
import net.bytebuddy.asm.Advice;

/**
 * {@code UnicastServerRef.logCall(Remote, Object)}: called by {@code dispatch} for every call, with
 * the {@code Method} (or the 1.1 skeleton's {@code Operation}) once it is known.
 */
public final class ServerLogCallAdvice {

    private ServerLogCallAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(1) Object method) {
        RmiCalls.serverMethod(method);
    }
}
