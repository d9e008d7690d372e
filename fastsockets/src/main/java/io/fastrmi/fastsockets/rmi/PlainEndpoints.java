package io.fastrmi.fastsockets.rmi;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/** Endpoints found to have no FastRMI agent, remembered for a while so that they cost no second offer. */
final class PlainEndpoints {

    private final ConcurrentHashMap<String, Long> until = new ConcurrentHashMap<>();
    private final long ttlNanos;
    private final LongSupplier clock;

    PlainEndpoints(Duration ttl) {
        this(ttl, null);
    }

    /** {@code clock} null: {@link System#nanoTime} (no lambda: this is made on the JVM's start-up path). */
    PlainEndpoints(Duration ttl, LongSupplier clock) {
        this.ttlNanos = ttl.toNanos();
        this.clock = clock;
    }

    private long now() {
        return clock == null ? System.nanoTime() : clock.getAsLong();
    }

    void remember(String host, int port) {
        until.put(host + ":" + port, now() + ttlNanos);
    }

    boolean isPlain(String host, int port) {
        String key = host + ":" + port;
        Long expiry = until.get(key);
        if (expiry == null) {
            return false;
        }
        if (now() - expiry >= 0) {
            until.remove(key, expiry);
            return false;
        }
        return true;
    }
}
