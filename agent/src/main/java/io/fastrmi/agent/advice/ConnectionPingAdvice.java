package io.fastrmi.agent.advice;

import io.fastrmi.fastsockets.rmi.PooledConnections;
import java.net.Socket;
import net.bytebuddy.asm.Advice;

/**
 * {@code TCPConnection.isDead()}: a connection negotiated fast and known to be idle and alive is
 * reused without RMI's ping round trip (the skipped method returns false, "not dead").
 */
public final class ConnectionPingAdvice {

    private ConnectionPingAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    static boolean enter(@Advice.FieldValue("socket") Socket socket, @Advice.FieldValue("lastuse") long lastUse,
            @Advice.FieldValue("roundtrip") long roundTrip) {
        return PooledConnections.aliveWithoutPing(socket, lastUse, roundTrip);
    }
}
