package io.fastrmi.agent.advice;

import io.fastrmi.fastsockets.rmi.DgcConnections;
import net.bytebuddy.asm.Advice;

/**
 * {@code UnicastRef.newCall(RemoteObject, Operation[], int, long)}: while a 1.1-stub call gets its
 * connection, a connection made for a DGC call may be a single-call one ({@link DgcConnections}).
 */
public final class DgcCallAdvice {

    private DgcCallAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static void enter(@Advice.Argument(0) Object stub) {
        DgcConnections.callBegins(stub);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit() {
        DgcConnections.callEnds();
    }
}
