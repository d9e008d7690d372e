package io.fastrmi.fastsockets.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.net.Socket;
import org.junit.jupiter.api.Test;

/** When RMI would ping a pooled connection, as {@code TCPConnection.isDead} decides, worked out without a branch. */
class PooledConnectionsTest {

    @Test
    void rmiReusesWithoutAPingOnlyWithinAMeasuredRoundTrip() {
        long lastUse = 1_000_000L;
        assertEquals(1, PooledConnections.rmiReusesWithoutPing(lastUse, 5, lastUse), "used just now");
        assertEquals(1, PooledConnections.rmiReusesWithoutPing(lastUse, 5, lastUse + 4), "within the round trip");
        assertEquals(0, PooledConnections.rmiReusesWithoutPing(lastUse, 5, lastUse + 5), "at its end");
        assertEquals(0, PooledConnections.rmiReusesWithoutPing(lastUse, 5, lastUse + 10_000), "after think time");
        assertEquals(0, PooledConnections.rmiReusesWithoutPing(lastUse, 0, lastUse), "a ping under 1 ms: always");
        assertEquals(0, PooledConnections.rmiReusesWithoutPing(lastUse, -1, lastUse - 5), "no round trip");
        assertEquals(1, PooledConnections.rmiReusesWithoutPing(lastUse, 5, lastUse - 3), "a clock that went back");
    }

    @Test
    void aPlainSocketIsNeverReusedWithoutAPing() {
        for (int i = 0; i < 64; i++) { // every turn of the looks within RMI's round trip too
            assertFalse(PooledConnections.aliveWithoutPing(new Socket(), System.currentTimeMillis(), 5));
            assertFalse(PooledConnections.aliveWithoutPing(new Socket(), 0, 5));
        }
    }
}
