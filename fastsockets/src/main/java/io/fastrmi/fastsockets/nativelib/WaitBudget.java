package io.fastrmi.fastsockets.nativelib;

/**
 * How long the next wait of one stream spins before it blocks, learnt from the waits before it
 * ({@code fastrmi_wait_spin_for} and {@code fastrmi_wait_learn}: the rules of {@code wait.h}). One
 * thread at a time.
 */
public interface WaitBudget {

    /** The bytes of a budget kept in native memory: {@code FASTRMI_WAIT_BUDGET_SIZE} of {@code fastrmi.h} (a test pins it). */
    long NATIVE_SIZE = 32;

    /** A read that returns later than this waited for its data: one that finds it takes a few µs at most. */
    long BLOCKED_NANOS = 5_000;

    /**
     * Whether a wait starting now could spin at all (false: {@code wait = block}, or adaptive on a
     * crowded machine); learns nothing and makes no system call most of the time, so a caller
     * whose look for data costs one asks this first.
     */
    boolean maySpin();

    /** Nanoseconds the wait starting now spins; 0: block at once. */
    long spinNanos();

    /** The wait took {@code waitedNanos}; {@code answeredSpinning}: it ended while spinning. */
    void learn(long waitedNanos, boolean answeredSpinning);
}
