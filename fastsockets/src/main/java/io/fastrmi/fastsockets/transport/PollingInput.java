package io.fastrmi.fastsockets.transport;

import io.fastrmi.fastsockets.nativelib.Nudge;
import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The input of a connection negotiated fast over TCP (RMI's own socket, no native stream): a read
 * that finds nothing there polls the socket ({@code available()}) for as long as the stream's
 * budget says before it blocks, as the native streams' waits spin. On a quiet machine a blocked
 * read's wake-up costs tens of microseconds when the woken thread's CPU idles (a socket call
 * here: 19-25 or 55-65 µs, a lottery per JVM pair); a reply that comes within the spin costs
 * none. The budget is the library's ({@code fastrmi_wait_*}: no spin on a crowded machine, none
 * after replies that came far beyond the spin, learnt per stream), so one set of rules decides
 * every wait; {@link Spinners} adds the group's limit and the nested-call rule, and a callback's
 * two sides nudge each other's reader to spin, each at the turn the other's data is due
 * ({@link #readAfterNudging}). Until a budget can be had (the library loads on another thread),
 * reads block as stock RMI's do.
 */
public final class PollingInput extends FilterInputStream {

    /**
     * A nudgeable sleep lasts at most this long, then the reader blocks in the socket's own read, a
     * connection so idle being in no callback's turns; a socket with an SO_TIMEOUT sleeps on in
     * slices up to {@link #NUDGEABLE_SLICE_MAX_MILLIS} until its timeout, so that it fires on time,
     * looking between slices whether the socket was closed (a close does not end a poll).
     */
    static final int NUDGEABLE_SLEEP_MILLIS = 50;
    static final int NUDGEABLE_SLICE_MAX_MILLIS = 1000;

    /**
     * A read that starts this long after the stream's last data follows a pause: the peer's
     * threads slept, and their cores idled deep (halted, or in a VM given back to the host). A
     * spin then keeps this core busy, so the peer's wake-up goes to such an idle core, which takes
     * tens of microseconds to come back; a read that blocks at once lets the kernel run the peer
     * here, as stock's reads do (across two namespace hosts a null call after 2 ms asleep was 1.41×
     * stock spinning, 0.96× blocking). Not under {@code wait = spin}, which asks every read to spin.
     */
    static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** For {@code wait = spin}, which asks every read to spin: no read follows a pause. */
    static final long NEVER_PAUSED = Long.MAX_VALUE;
    private static final long NO_DATA_YET = Long.MIN_VALUE;

    private final Supplier<WaitBudget> budgets;
    private final Spinners spinners;
    private final NudgeableSleep sleep;
    private final long pauseNanos;
    private final FirstArrival firstArrival = new FirstArrival();
    private final byte[] one = new byte[1];
    private WaitBudget budget;
    /** The last {@link #sleep} ended with data found while nudged to spin. */
    private boolean sleepAnsweredSpinning;
    /** The read under way waited for its data (it found none at its start). */
    private boolean waited;
    /** Waits whose data was found while nudged to spin (the reader's count; read by the tests). */
    private volatile long answeredNudged;
    /** When this stream's last read brought data (System.nanoTime); {@link #NO_DATA_YET} before the first. */
    private long lastDataNanos = NO_DATA_YET;
    /** Reads that blocked at once because they followed a pause (the reader's count; read by the tests). */
    private volatile long afterPauses;
    /** Looks for data after which the spin gave its core away (the reader's count; read by the tests). */
    private volatile long yields;
    /**
     * Another thread of the group was woken from a blocked read while this one last waited: the
     * group has other calls in flight (many clients, a callback's handler), whose threads' wake-ups
     * need the cores a spinner would hold (the kernel puts a woken thread beside a spinning one and
     * lets it wait), so this wait blocks at once.
     */
    private boolean othersWokeLastWait;

    /** {@code budgets}: a fresh budget for this stream, or null while none can be had. */
    public PollingInput(InputStream in, Supplier<WaitBudget> budgets, Spinners spinners) {
        this(in, budgets, spinners, null);
    }

    /** {@code sleep}: how its blocked waits sleep nudgeably, or null for the socket's read always. */
    PollingInput(InputStream in, Supplier<WaitBudget> budgets, Spinners spinners, NudgeableSleep sleep) {
        this(in, budgets, spinners, sleep, PAUSE_NANOS);
    }

    /**
     * {@code pauseNanos}: how long after its last data a read follows a pause ({@link #PAUSE_NANOS},
     * or {@link #NEVER_PAUSED}).
     */
    PollingInput(InputStream in, Supplier<WaitBudget> budgets, Spinners spinners, NudgeableSleep sleep,
            long pauseNanos) {
        super(in);
        this.budgets = budgets;
        this.spinners = spinners;
        this.sleep = sleep;
        this.pauseNanos = pauseNanos;
    }

    @Override
    public int read() throws IOException {
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = readWaiting(b, off, len);
        if (n > 0) {
            lastDataNanos = System.nanoTime();
        }
        return n;
    }

    private int readWaiting(byte[] b, int off, int len) throws IOException {
        // Blocking at once (a crowded machine, a JVM still compiling the path) costs what stock's
        // read costs: no look for data.
        if (len == 0 || !spinners.warmRead()) {
            return in.read(b, off, len);
        }
        if (lastDataNanos != NO_DATA_YET && System.nanoTime() - lastDataNanos > pauseNanos) {
            afterPauses++; // the reader alone writes it
            return readWithoutLooking(null, b, off, len);
        }
        WaitBudget waits = budget();
        if (waits == null || !waits.maySpin()) {
            return in.read(b, off, len);
        }
        // Every read that brings data counts in the group's order of arrivals, one found there at
        // once too (its reader came late: its data still came before what is read after it).
        ArrivalOrder order = spinners.arrivals();
        long since = order.count();
        long start = System.nanoTime();
        waited = false;
        int n = readAsBudgeted(waits, b, off, len);
        if (n > 0) {
            order.arrived(this, System.nanoTime());
            if (waited) {
                learnFirstArrival(order, since, start);
            }
        }
        return n;
    }

    /** A read that waits as the budget, the group and this stream's last waits say; sets {@link #waited}. */
    private int readAsBudgeted(WaitBudget waits, byte[] b, int off, int len) throws IOException {
        if (firstArrival.confident() instanceof PollingInput first && first != this && first.sleep != null) {
            return readAfterNudging(first, b, off, len);
        }
        if (othersWokeLastWait) {
            return readWithoutLooking(null, b, off, len);
        }
        long spin = waits.spinNanos();
        if (spin == 0) {
            return readWithoutLooking(waits, b, off, len);
        }
        if (!spinners.enter()) { // as many spin already: this one blocks, and its wait teaches nothing
            return readWithoutLooking(null, b, off, len);
        }
        long start;
        long wakeUpsBefore;
        boolean answeredSpinning;
        try {
            if (in.available() > 0) {
                return in.read(b, off, len);
            }
            waited = true;
            start = System.nanoTime();
            wakeUpsBefore = spinners.wakeUps();
            // Yielding from the start: a peer thread woken after a pause is put on the waker's CPU,
            // which this spin would hold until it ends (across two namespace hosts a null call after
            // 2 ms asleep took 50.8, 81.9 and 145.5 us with spins of 5, 20 and 60 us; 44.3 yielding).
            answeredSpinning = spinUntilReadable(start + spin, wakeUpsBefore, start);
        } finally {
            spinners.exit();
        }
        int n = answeredSpinning ? in.read(b, off, len) : sleepAndRead(b, off, len);
        answeredSpinning |= sleepAnsweredSpinning;
        othersWokeLastWait = spinners.wakeUps() != wakeUpsBefore;
        if (!answeredSpinning) {
            spinners.wokeUp();
        }
        waits.learn(System.nanoTime() - start, answeredSpinning);
        return n;
    }

    /**
     * A wait during which another stream's data is expected first (this stream's last waits said
     * so: a callback's caller, whose handler gets the call back before the caller gets its reply):
     * that stream's reader is nudged to spin for it, and this one sleeps rather than spin, so that
     * the spinning thread is the one the next message is for. Its budget learns nothing: it did
     * not try to spin.
     */
    private int readAfterNudging(PollingInput first, byte[] b, int off, int len) throws IOException {
        if (in.available() > 0) {
            return in.read(b, off, len);
        }
        waited = true;
        first.sleep.nudgeToSpin(System.nanoTime() + firstArrival.nudgedSpinNanos());
        return readWithoutLooking(null, b, off, len);
    }

    /**
     * Blocks until data comes: nudgeably when another stream nudges this one (and spins then, as
     * long as the nudger said), else in the socket's read. Sets {@link #sleepAnsweredSpinning}.
     */
    private int sleepAndRead(byte[] b, int off, int len) throws IOException {
        sleepAnsweredSpinning = false;
        if (sleep == null || !sleep.wanted()) {
            return in.read(b, off, len);
        }
        int timeout = sleep.readTimeoutMillis();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeout);
        int slice = NUDGEABLE_SLEEP_MILLIS;
        while (sleep.wanted()) {
            int millis = slice;
            if (timeout > 0) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime() + 999_999);
                if (left <= 0) {
                    throw new SocketTimeoutException("Read timed out");
                }
                millis = (int) Math.min(slice, left);
            }
            Nudge.Woken woken = sleep.sleep(millis);
            if (woken == null || woken == Nudge.Woken.READABLE) {
                break; // the read takes the data, or sleeps in the socket's read
            }
            if (woken == Nudge.Woken.NOTHING) {
                if (timeout == 0) {
                    break; // a long idle: the socket's read from here, which sees a close at once
                }
                in.available(); // throws once the socket is closed
                slice = Math.min(2 * slice, NUDGEABLE_SLICE_MAX_MILLIS);
                continue;
            }
            // The machine may have become crowded since the nudger looked: then this one sleeps on.
            if (budget.maySpin() && spinners.enter()) {
                try {
                    long spinsAtLeastUntil = System.nanoTime() + FirstArrival.NUDGED_SPIN_MIN_NANOS;
                    if (spinUntilReadable(sleep.spinUntil(), spinners.wakeUps(), spinsAtLeastUntil)) {
                        sleepAnsweredSpinning = true;
                        answeredNudged++; // the reader alone writes it
                        break;
                    }
                } finally {
                    spinners.exit();
                }
            }
        }
        return in.read(b, off, len);
    }

    /**
     * After a wait begun at {@code start} (arrival count {@code since}): which stream's data came
     * first after it began, learnt; another stream found first often enough is told it will be nudged.
     */
    private void learnFirstArrival(ArrivalOrder order, long since, long start) {
        int slot = order.firstSince(since);
        Object first = slot < 0 ? null : order.streamAt(slot);
        firstArrival.observe(first, slot < 0 ? 0 : order.nanosAt(slot) - start);
        if (firstArrival.confident() instanceof PollingInput other && other != this && other.sleep != null) {
            other.sleep.want();
        }
    }

    /** How many of this stream's sleeps a nudge ended, and how many waits found their data spinning then. */
    long[] nudgeCounts() {
        return new long[] {sleep == null ? 0 : sleep.nudged(), answeredNudged};
    }

    /** The stream's later waits sleep in the socket's read (its nudge is closed once unreachable). */
    @Override
    public void close() throws IOException {
        if (sleep != null) {
            sleep.close();
        }
        super.close();
    }

    /**
     * A read that will not spin, so it does not look for data first (a system call per read that
     * stock's read does not make: 8 clients at once cost 10% more CPU per call with it): while the
     * group has other calls in flight or this stream has nudged another to spin ({@code learner}
     * null), or when the stream's budget says no spin (its replies came far beyond any spin). A read that took longer than
     * {@link WaitBudget#BLOCKED_NANOS} was woken: its wait says whether the others still run, and teaches
     * the budget (which probes again now and then); a quicker one found its bytes and teaches nothing.
     */
    private int readWithoutLooking(WaitBudget learner, byte[] b, int off, int len) throws IOException {
        long start = System.nanoTime();
        long wakeUpsBefore = spinners.wakeUps();
        int n = sleepAndRead(b, off, len);
        long took = System.nanoTime() - start;
        if (took > WaitBudget.BLOCKED_NANOS) {
            waited = true;
            othersWokeLastWait = spinners.wakeUps() != wakeUpsBefore;
            if (!sleepAnsweredSpinning) {
                spinners.wokeUp();
            }
            if (learner != null) {
                learner.learn(took, sleepAnsweredSpinning);
            }
        }
        return n;
    }

    /**
     * Polls until bytes are there (true), {@code deadline} passed, or another thread of the group
     * woke; from {@code yieldFrom} on it yields between looks, so that the spin gives the core to
     * any thread that needs it (a nudged spin to 250 µs without yielding had the callback's p99
     * across hosts at 331 µs against stock's 225; yielding, 197 against 228). A budgeted spin yields
     * from its start; a nudged one only past the usual spin.
     */
    private boolean spinUntilReadable(long deadline, long wakeUps, long yieldFrom) throws IOException {
        long now;
        do {
            if (in.available() > 0) {
                return true;
            }
            now = System.nanoTime();
            if (now - yieldFrom >= 0) {
                yields++; // the reader alone writes it
                Thread.yield(); // another thread that needs this core gets it
            } else {
                Thread.onSpinWait();
            }
        } while (now - deadline < 0 && spinners.wakeUps() == wakeUps);
        return false;
    }

    /** How many of this stream's reads blocked at once after a pause. */
    long afterPauses() {
        return afterPauses;
    }

    /** How many times this stream's spins gave their core away between looks. */
    long yields() {
        return yields;
    }

    private WaitBudget budget() {
        WaitBudget waits = budget;
        if (waits == null) {
            waits = budgets.get();
            budget = waits;
        }
        return waits;
    }

    @Override
    public boolean markSupported() {
        return false;
    }
}
