package io.fastrmi.fastsockets.nativelib;

import java.io.IOException;

/**
 * A wait for a socket's data that another thread can end early ({@code fastrmi_nudge_*}): the
 * thread that knows whose data comes next in this JVM nudges the thread that waits for it, which
 * then spins for the data instead of sleeping until it comes. One thread waits at a time; any
 * thread may nudge, until the nudge is closed.
 */
public interface Nudge extends AutoCloseable {

    /** What ended a {@link #await}. */
    enum Woken {
        /** The time passed, or a signal came: look again. */
        NOTHING,
        /** The socket has data, its end, or an error to read. */
        READABLE,
        /** Another thread nudged (the nudge is spent). */
        NUDGED
    }

    /** Waits until socket {@code fd} is readable, the nudge comes, or {@code timeoutMillis} pass. */
    Woken await(int fd, int timeoutMillis) throws IOException;

    /** Ends the current wait, or the next one when none waits now. */
    void nudge() throws IOException;

    @Override
    void close() throws IOException;
}
