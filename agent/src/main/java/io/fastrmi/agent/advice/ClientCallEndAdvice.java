package io.fastrmi.agent.advice;

import io.fastrmi.agent.bootstrap.RmiCalls;
import net.bytebuddy.asm.Advice;

/**
 * {@code UnicastRef.done(RemoteCall)}, and {@code UnicastRef.invoke(RemoteCall)} when it throws
 * (the stub then skips {@code done}): a 1.1-stub call ends.
 */
public final class ClientCallEndAdvice {

    private ClientCallEndAdvice() {
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Origin("#m") String method, @Advice.Thrown Throwable thrown) {
        if (thrown != null || method.equals("done")) {
            RmiCalls.clientEndCurrent();
        }
    }
}
