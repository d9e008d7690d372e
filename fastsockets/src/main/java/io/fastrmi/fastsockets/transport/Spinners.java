package io.fastrmi.fastsockets.transport;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * The threads of one group of streams that spin (poll) while they wait, as the library counts
 * those of a native context: only so many at once (the others block at once: more spinners take
 * the cores the threads they wait for need), and each stops early once a thread of the group was
 * woken from a blocked read meanwhile (in a nested call such as a callback that thread is
 * probably the one the spinner waits for, and it needs the core).
 */
public final class Spinners {

    /**
     * Reads of a JVM's group before its waits may spin under adaptive waiting ({@code wait = spin}
     * spins from the first): the JIT compiles the read path meanwhile, and on a small machine a
     * spinner takes the core its compiler threads need (the crowd rule's looks, 10 ms apart, do not
     * see their bursts), while an interpreted spin costs a budget's downcalls per read. Agent tcp
     * over a fresh pair's first 2,000 calls: null 1.40x and echo-int 1.18x stock's time spinning,
     * 0.98x and 0.95x blocking at once (wait = block).
     */
    public static final long COLD_READS = 10_000;

    private final AtomicInteger spinning = new AtomicInteger();
    private final AtomicLong wakeUps = new AtomicLong();
    private final ArrivalOrder arrivals = new ArrivalOrder();
    private final IntSupplier most;
    /** Reads the group has left to make cold; at 0 or below (a race may pass 0) it is warm. */
    private final AtomicLong coldReadsLeft;

    /**
     * {@code most}: how many may spin at once, asked at each start (it may be learnt late);
     * {@code coldReads}: the group's reads before any may spin ({@link #COLD_READS}).
     */
    public Spinners(IntSupplier most, long coldReads) {
        this.most = most;
        this.coldReadsLeft = new AtomicLong(coldReads);
    }

    /** Counts a read of the group: false while the group is still cold (its read blocks at once). */
    boolean warmRead() {
        return coldReadsLeft.get() <= 0 || coldReadsLeft.getAndDecrement() <= 0;
    }

    /** Takes a place to spin: false when as many as may already spin. */
    boolean enter() {
        int limit = most.getAsInt();
        for (int now = spinning.get(); now < limit; now = spinning.get()) {
            if (spinning.compareAndSet(now, now + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Gives back the place {@link #enter} took. */
    void exit() {
        spinning.decrementAndGet();
    }

    /** A count that moves whenever a thread of the group was woken from a blocked read. */
    long wakeUps() {
        return wakeUps.get();
    }

    /** A thread of the group was woken from a blocked read. */
    void wokeUp() {
        wakeUps.incrementAndGet();
    }

    /** The order in which the group's streams got their data after waiting. */
    ArrivalOrder arrivals() {
        return arrivals;
    }

    /** Threads spinning now (for the tests). */
    int spinning() {
        return spinning.get();
    }
}
