package io.fastrmi.agent.advice;

import io.fastrmi.agent.bootstrap.RmiCalls;
import net.bytebuddy.asm.Advice;

/** {@code UnicastServerRef.dispatch(Remote, RemoteCall)}: the server runs one call. */
public final class ServerDispatchAdvice {

    private ServerDispatchAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.Argument(1) Object call) {
        return RmiCalls.serverBegin(call);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object event) {
        RmiCalls.serverEnd(event);
    }
}
