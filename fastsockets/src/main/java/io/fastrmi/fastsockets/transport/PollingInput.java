package io.fastrmi.fastsockets.transport;

import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Supplier;

/**
 * The input of a connection negotiated fast over TCP (RMI's own socket, no native stream): a read
 * that finds nothing there polls the socket ({@code available()}) for as long as the stream's
 * budget says before it blocks, as the native streams' waits spin. On a quiet machine a blocked
 * read's wake-up costs tens of microseconds when the woken thread's CPU idles (a socket call
 * here: 19-25 or 55-65 µs, a lottery per JVM pair); a reply that comes within the spin costs
 * none. The budget is the library's ({@code fastrmi_wait_*}: no spin on a crowded machine, none
 * after replies that came far beyond the spin, learnt per stream), so one set of rules decides
 * every wait; {@link Spinners} adds the group's limit and the nested-call rule. Until a budget
 * can be had (the library loads on another thread), reads block as stock RMI's do.
 */
public final class PollingInput extends FilterInputStream {

    /** A read that returns later than this blocked: one that finds its bytes takes a few µs at most. */
    static final long BLOCKED_NANOS = 5_000;

    private final Supplier<WaitBudget> budgets;
    private final Spinners spinners;
    private final byte[] one = new byte[1];
    private WaitBudget budget;
    /**
     * Another thread of the group was woken from a blocked read while this one last waited: the
     * group has other calls in flight (many clients, a callback's handler), whose threads' wake-ups
     * need the cores a spinner would hold (the kernel puts a woken thread beside a spinning one and
     * lets it wait), so this wait blocks at once.
     */
    private boolean othersWokeLastWait;

    /** {@code budgets}: a fresh budget for this stream, or null while none can be had. */
    public PollingInput(InputStream in, Supplier<WaitBudget> budgets, Spinners spinners) {
        super(in);
        this.budgets = budgets;
        this.spinners = spinners;
    }

    @Override
    public int read() throws IOException {
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        WaitBudget waits = budget();
        // Blocking at once (a crowded machine) costs what stock's read costs: no look for data.
        if (waits == null || len == 0 || !waits.maySpin()) {
            return in.read(b, off, len);
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
            start = System.nanoTime();
            wakeUpsBefore = spinners.wakeUps();
            answeredSpinning = spinUntilReadable(start, spin, wakeUpsBefore);
        } finally {
            spinners.exit();
        }
        int n = in.read(b, off, len);
        othersWokeLastWait = spinners.wakeUps() != wakeUpsBefore;
        if (!answeredSpinning) {
            spinners.wokeUp();
        }
        waits.learn(System.nanoTime() - start, answeredSpinning);
        return n;
    }

    /**
     * A read that will not spin, so it does not look for data first (a system call per read that
     * stock's read does not make: 8 clients at once cost 10% more CPU per call with it): while the
     * group has other calls in flight ({@code learner} null), or when the stream's budget says no
     * spin (its replies came far beyond any spin). A read that took longer than
     * {@link #BLOCKED_NANOS} was woken: its wait says whether the others still run, and teaches
     * the budget (which probes again now and then); a quicker one found its bytes and teaches nothing.
     */
    private int readWithoutLooking(WaitBudget learner, byte[] b, int off, int len) throws IOException {
        long start = System.nanoTime();
        long wakeUpsBefore = spinners.wakeUps();
        int n = in.read(b, off, len);
        long waited = System.nanoTime() - start;
        if (waited > BLOCKED_NANOS) {
            othersWokeLastWait = spinners.wakeUps() != wakeUpsBefore;
            spinners.wokeUp();
            if (learner != null) {
                learner.learn(waited, false);
            }
        }
        return n;
    }

    /** Polls until bytes are there (true), the spin is over, or another thread of the group woke. */
    private boolean spinUntilReadable(long start, long spin, long wakeUps) throws IOException {
        do {
            if (in.available() > 0) {
                return true;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() - start < spin && spinners.wakeUps() == wakeUps);
        return false;
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
