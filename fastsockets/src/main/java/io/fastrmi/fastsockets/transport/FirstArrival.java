package io.fastrmi.fastsockets.transport;

/**
 * Which stream's data came first after one stream's waits began, learnt over its last waits
 * (one thread at a time: the stream's reader): when the same other stream came first
 * {@link #CONFIDENT} times in a row, that stream's reader, not this one, should be the one
 * spinning while this one waits; how long after the wait's start it came tells how long. Another
 * stream's reader may ask {@link #confident} too (whether the two take turns): a stale answer
 * costs a wrong guess, nothing else.
 */
final class FirstArrival {

    /** A guess made this many times in a row is acted on: a callback's turns repeat, many clients' do not. */
    static final int CONFIDENT = 3;

    /**
     * A nudged reader spins at most this long for its data, yielding its core after the first
     * {@link #NUDGED_SPIN_MIN_NANOS}: the turn of a callback's other side takes 20-100 µs across
     * hosts here; a wrong guess costs no more than this.
     */
    static final long NUDGED_SPIN_MAX_NANOS = 250_000;
    /** ...and at least this long (the default spin), from the nudge on. */
    static final long NUDGED_SPIN_MIN_NANOS = 20_000;

    private Object stream;
    private int streak;
    private long averageNanos;

    /** After a wait: {@code first} came first, {@code afterNanos} after the wait began (null: unknown). */
    void observe(Object first, long afterNanos) {
        if (first == null || first != stream) {
            stream = first;
            streak = first == null ? 0 : 1;
            averageNanos = Math.max(0, afterNanos);
            return;
        }
        streak = Math.min(streak + 1, CONFIDENT);
        averageNanos += (Math.max(0, afterNanos) - averageNanos) / 4;
    }

    /** The stream whose data comes first, when known with confidence; else null. */
    Object confident() {
        return streak >= CONFIDENT ? stream : null;
    }

    /** How long after a wait's start that stream's data came, on average of the last ones. */
    long averageNanos() {
        return averageNanos;
    }

    /** How long the reader of the {@link #confident} stream is nudged to spin: twice its usual turn, within bounds. */
    long nudgedSpinNanos() {
        return Math.min(NUDGED_SPIN_MAX_NANOS, Math.max(NUDGED_SPIN_MIN_NANOS, 2 * averageNanos));
    }
}
