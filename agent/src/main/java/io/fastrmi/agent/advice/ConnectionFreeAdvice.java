package io.fastrmi.agent.advice;

import io.fastrmi.agent.bootstrap.LeanStreams;
import net.bytebuddy.asm.Advice;

/**
 * {@code TCPChannel.free(Connection, boolean)}: a lean connection ends the freeing call's input
 * message before another call can take it, and goes back to the pool only while its lean streams
 * work.
 */
public final class ConnectionFreeAdvice {

    private ConnectionFreeAdvice() {
    }

    @Advice.OnMethodEnter
    static void enter(@Advice.Argument(0) Object connection, @Advice.Argument(value = 1, readOnly = false) boolean reuse) {
        if (reuse) {
            reuse = LeanStreams.freed(connection);
        }
    }
}
