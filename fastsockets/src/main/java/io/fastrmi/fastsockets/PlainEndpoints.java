package io.fastrmi.fastsockets;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/** Endpoints found to have no FastRMI agent, remembered for a while so that they cost no second offer. */
final class PlainEndpoints {

    private final ConcurrentHashMap<String, Long> until = new ConcurrentHashMap<>();
    private final long ttlNanos;
    private final LongSupplier clock;

    PlainEndpoints(Duration ttl, LongSupplier clock) {
        this.ttlNanos = ttl.toNanos();
        this.clock = clock;
    }

    void remember(String host, int port) {
        until.put(host + ":" + port, clock.getAsLong() + ttlNanos);
    }

    boolean isPlain(String host, int port) {
        String key = host + ":" + port;
        Long expiry = until.get(key);
        if (expiry == null) {
            return false;
        }
        if (clock.getAsLong() - expiry >= 0) {
            until.remove(key, expiry);
            return false;
        }
        return true;
    }
}
