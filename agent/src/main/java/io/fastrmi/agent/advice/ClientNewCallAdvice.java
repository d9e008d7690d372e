package io.fastrmi.agent.advice;

import io.fastrmi.agent.bootstrap.RmiCalls;
import net.bytebuddy.asm.Advice;

/** {@code UnicastRef.newCall(RemoteObject, Operation[], int, long)}: a 1.1-stub call (registry, DGC) begins. */
public final class ClientNewCallAdvice {

    private ClientNewCallAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Argument(1) Object[] operations, @Advice.Argument(2) int opnum,
            @Advice.Thrown Throwable thrown) {
        if (thrown == null) {
            RmiCalls.clientBeginOperation(operations[opnum]);
        }
    }
}
