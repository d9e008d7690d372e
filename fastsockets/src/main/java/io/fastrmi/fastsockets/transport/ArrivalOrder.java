package io.fastrmi.fastsockets.transport;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The order in which the streams of one group got their data after waiting for it, the last
 * {@link #KEPT} of it: which stream's data came first after another began to wait. In a callback
 * the caller's data never comes first after its request (its handler's does), which tells the
 * caller to let its handler spin rather than itself. Lock-free and without garbage; a reader that
 * races a writer may read a slot one arrival late, which costs a wrong guess and nothing else.
 */
final class ArrivalOrder {

    static final int KEPT = 16;

    private final AtomicLong count = new AtomicLong();
    private final AtomicReferenceArray<Object> streams = new AtomicReferenceArray<>(KEPT);
    private final AtomicLongArray nanos = new AtomicLongArray(KEPT);

    /** How many arrivals so far: what a wait starting now passes to {@link #firstSince}. */
    long count() {
        return count.get();
    }

    /** {@code stream}'s data came at {@code when} (System.nanoTime) after it waited. */
    void arrived(Object stream, long when) {
        int slot = (int) (count.getAndIncrement() % KEPT);
        nanos.set(slot, when);
        streams.set(slot, stream);
    }

    /**
     * The slot of the first arrival after {@code since} (a {@link #count}), or -1 when none came
     * or too many came since to know.
     */
    int firstSince(long since) {
        long now = count.get();
        return now <= since || now - since > KEPT ? -1 : (int) (since % KEPT);
    }

    Object streamAt(int slot) {
        return streams.get(slot);
    }

    long nanosAt(int slot) {
        return nanos.get(slot);
    }
}
