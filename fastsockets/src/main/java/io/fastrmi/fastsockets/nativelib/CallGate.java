package io.fastrmi.fastsockets.nativelib;

import java.net.SocketException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The calls in flight on one native stream, whatever binds it: a call enters and leaves with one
 * atomic step each, so the library's own lock is the only one a transfer takes, and a close frees
 * the stream only after the last call is out. A close with calls blocked on the stream aborts it
 * first (they throw "Socket closed"); a stream nobody is blocked on is closed in order.
 */
public final class CallGate {

    /** Calls in flight (the low bits) and the flags below, changed only by compare-and-set. */
    private final AtomicInteger lifecycle = new AtomicInteger();
    private static final int CALLS = (1 << 28) - 1;
    private static final int ABORTED = 1 << 28;
    private static final int CLOSING = 1 << 29;
    private static final int CLOSED = 1 << 30;
    /** The thread in close, once it waits for the calls in flight: the last call out unparks it. */
    private volatile Thread closer;

    /** Counts a call in; "Socket closed" once the stream is closing or aborted. */
    public void enter() throws SocketException {
        if (!tryEnter()) {
            throw new SocketException("Socket closed");
        }
    }

    /** Counts a call in, unless the stream is closing or aborted. */
    public boolean tryEnter() {
        int state;
        do {
            state = lifecycle.get();
            if ((state & (CLOSING | ABORTED)) != 0) {
                return false;
            }
        } while (!lifecycle.compareAndSet(state, state + 1));
        return true;
    }

    public void exit() {
        int state = lifecycle.decrementAndGet();
        if ((state & CALLS) == 0 && (state & CLOSING) != 0) {
            LockSupport.unpark(closer);
        }
    }

    /**
     * Marks the stream aborted and counts the abort as a call in flight (so that a close on another
     * thread frees the stream only after it): true when the caller must now abort it in the
     * library, then {@link #exit}; false when it was aborted or closed already.
     */
    public boolean beginAbort() {
        int state;
        do {
            state = lifecycle.get();
            if ((state & (CLOSED | ABORTED)) != 0) {
                return false;
            }
        } while (!lifecycle.compareAndSet(state, (state | ABORTED) + 1));
        return true;
    }

    /** What a close must do, from {@link #beginClose}. */
    public enum Closing {
        /** Closed or closing already: nothing. */
        NOTHING,
        /** Calls are blocked on the stream: abort it in the library, then {@link #awaitCallsOut}. */
        ABORT_FIRST,
        /** {@link #awaitCallsOut} (an abort already woke them, or none is in flight). */
        AWAIT
    }

    public Closing beginClose() {
        int state;
        int closing;
        do {
            state = lifecycle.get();
            if ((state & (CLOSED | CLOSING)) != 0) {
                return Closing.NOTHING;
            }
            closing = state | CLOSING;
            if ((state & CALLS) > 0) {
                closing |= ABORTED;
            }
        } while (!lifecycle.compareAndSet(state, closing));
        closer = Thread.currentThread(); // a call that left before this unparked nobody: awaitCallsOut sees it gone
        return (state & CALLS) > 0 && (state & ABORTED) == 0 ? Closing.ABORT_FIRST : Closing.AWAIT;
    }

    /** Until no call is in flight, then marks the stream closed in the same step (an abort may still enter before). */
    public void awaitCallsOut() {
        boolean interrupted = false;
        while (true) {
            int state = lifecycle.get();
            if ((state & CALLS) == 0) {
                if (lifecycle.compareAndSet(state, state | CLOSED)) {
                    break;
                }
                continue;
            }
            LockSupport.park(this);
            if (Thread.interrupted()) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
