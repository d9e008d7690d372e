package io.fastrmi.fastsockets.transport;

import io.fastrmi.fastsockets.nativelib.Nudge;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.function.IntSupplier;

/**
 * The blocked part of one stream's waits, once another stream of its group has found that this
 * one's data tends to come first after its own request ({@link #want}): its reader then sleeps on
 * the socket and a {@link Nudge} together, so that the other stream's reader can set it spinning
 * just before the data comes ({@link #nudgeToSpin}). Where no nudge or socket descriptor can be
 * had, or one fails, the reader sleeps in the socket's own read, as before.
 *
 * <p>No lock: a nudger that takes one while the reader it woke wants it costs both a context
 * switch. The nudge is closed only once this object is unreachable (a {@link Cleaner}), when no
 * thread can be sleeping on it or nudging it, so no nudge ever goes to a closed descriptor.
 */
final class NudgeableSleep {

    private static final Cleaner CLEANER = Cleaner.create();

    /** Opens a nudge; null, or an IOException, when none can be had here. */
    interface Opener {
        Nudge open() throws IOException;
    }

    private final Opener opener;
    private final IntSupplier socketFd;
    private final IntSupplier readTimeout;
    private volatile boolean wanted;
    private volatile boolean unavailable;
    private volatile boolean sleeping;
    private volatile long spinUntil;
    /** Written by the reader alone, before its first {@link #sleeping}. */
    private volatile Nudge nudge;
    private int fd = -1;
    /** Sleeps a nudge ended (the reader's count; read by the tests). */
    private volatile long nudged;

    /**
     * {@code socketFd}: the socket's descriptor number, or -1 when it cannot be read;
     * {@code readTimeout}: its SO_TIMEOUT now, in ms (0: none).
     */
    NudgeableSleep(Opener opener, IntSupplier socketFd, IntSupplier readTimeout) {
        this.opener = opener;
        this.socketFd = socketFd;
        this.readTimeout = readTimeout;
    }

    /** The socket's SO_TIMEOUT now, in ms (0: none): a read that sleeps here keeps it. */
    int readTimeoutMillis() {
        return readTimeout.getAsInt();
    }

    /** Another stream will nudge this one: its reader's next sleeps take the nudge too. */
    void want() {
        wanted = true;
    }

    boolean wanted() {
        return wanted && !unavailable;
    }

    /**
     * From another thread: when this stream's reader sleeps nudgeably now, it wakes and spins until
     * {@code deadline} (System.nanoTime); otherwise nothing happens (a reader at work needs no
     * nudge). A nudge that comes just after the reader woke for its data ends its next sleep at
     * once; it then spins until that deadline, past or close, and sleeps again.
     */
    void nudgeToSpin(long deadline) {
        if (!sleeping) {
            return;
        }
        spinUntil = deadline;
        try {
            nudge.nudge();
        } catch (IOException e) {
            unavailable = true; // the reader sleeps in the socket's read from its next sleep on
        }
    }

    /** Until when the reader, once nudged, spins for its data. */
    long spinUntil() {
        return spinUntil;
    }

    /**
     * The reader's sleep of at most {@code millis}: what woke it, or null when it cannot sleep so
     * (no nudge here, the socket's descriptor unknown, closed, or a failure before): then it reads.
     */
    Nudge.Woken sleep(int millis) {
        if (!wanted() || (nudge == null && !open())) {
            return null;
        }
        sleeping = true;
        try {
            Nudge.Woken woken = nudge.await(fd, millis);
            if (woken == Nudge.Woken.NUDGED) {
                nudged++; // the reader alone writes it
            }
            return woken;
        } catch (IOException e) {
            unavailable = true; // a socket closed meanwhile, say: its read says what happened
            return null;
        } finally {
            sleeping = false;
        }
    }

    /** How many of the reader's sleeps a nudge ended. */
    long nudged() {
        return nudged;
    }

    /** The stream closed: its reader sleeps in the socket's read (the nudge goes with this object). */
    void close() {
        unavailable = true;
    }

    private boolean open() {
        Nudge opened = null;
        try {
            fd = socketFd.getAsInt();
            opened = fd < 0 ? null : opener.open();
        } catch (IOException | RuntimeException e) {
            opened = null;
        }
        if (opened == null) {
            unavailable = true;
            return false;
        }
        CLEANER.register(this, new Closer(opened));
        nudge = opened;
        return true;
    }

    /** Closes one nudge once its sleep is unreachable. */
    private record Closer(Nudge nudge) implements Runnable {
        @Override
        public void run() {
            try {
                nudge.close();
            } catch (IOException e) {
                FastRmiLog.warn("FastRMI: " + e.getMessage());
            }
        }
    }
}
