package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PollingInput} over a real TCP connection on the loopback: what it asks the budget, when
 * it spins and when it blocks, and that every byte arrives as it was sent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PollingInputTest {

    private static final long LONG_SPIN = TimeUnit.SECONDS.toNanos(30);
    /** Longer than any test: their reads spin as their budgets say however the machine delays them. */
    private static final long NO_PAUSE = TimeUnit.MINUTES.toNanos(10);

    private Socket reader;
    private Socket writer;

    /** A budget that spins as told and records what it learnt. */
    static final class RecordingBudget implements WaitBudget {
        final boolean maySpin;
        final long spin;
        volatile int spinAsked;
        final List<Boolean> answeredSpinning = new ArrayList<>();

        RecordingBudget(boolean maySpin, long spin) {
            this.maySpin = maySpin;
            this.spin = spin;
        }

        @Override
        public boolean maySpin() {
            return maySpin;
        }

        @Override
        public long spinNanos() {
            spinAsked++;
            return spin;
        }

        @Override
        public void learn(long waitedNanos, boolean answered) {
            assertTrue(waitedNanos >= 0, "waited " + waitedNanos);
            answeredSpinning.add(answered);
        }
    }

    @BeforeEach
    void connect() throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            writer = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
            reader = server.accept();
        }
    }

    @AfterEach
    void close() throws IOException {
        writer.close();
        reader.close();
    }

    private PollingInput polling(WaitBudget budget, Spinners spinners) throws IOException {
        return new PollingInput(reader.getInputStream(), () -> budget, spinners, null, NO_PAUSE);
    }

    /** The reader's socket input, counting in {@code looks[0]} each look for data ({@code available()}). */
    private InputStream countingLooks(int[] looks) throws IOException {
        return new java.io.FilterInputStream(reader.getInputStream()) {
            @Override
            public int available() throws IOException {
                looks[0]++;
                return super.available();
            }
        };
    }

    /** Writes {@code bytes} once {@code when} holds (polled), from another thread. */
    private Thread writeWhen(java.util.function.BooleanSupplier when, byte[] bytes, Runnable before) {
        Thread t = new Thread(() -> {
            try {
                while (!when.getAsBoolean()) {
                    Thread.sleep(1);
                }
                before.run();
                Thread.sleep(50); // the reader waits meanwhile, spinning or blocked as the test set it up
                OutputStream out = writer.getOutputStream();
                out.write(bytes);
                out.flush();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        t.start();
        return t;
    }

    @Test
    void aReplyThatComesWhileSpinningIsAnsweredSpinning() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, LONG_SPIN);
        Spinners spinners = new Spinners(() -> 1, 0);
        PollingInput in = polling(budget, spinners);
        Thread t = writeWhen(() -> spinners.spinning() == 1, new byte[] {1, 2, 3}, () -> { });
        byte[] got = new byte[3];
        assertEquals(3, readFully(in, got));
        t.join();
        assertArrayEquals(new byte[] {1, 2, 3}, got);
        assertEquals(List.of(true), budget.answeredSpinning);
        assertEquals(0, spinners.spinning(), "the spinner gave its place back");
        assertEquals(0, spinners.wakeUps(), "nobody was woken from a blocked read");
    }

    /**
     * A spin gives its core away between looks from its start: a peer thread woken after a pause
     * lands on the waker's CPU, and a spin that held it would keep that thread waiting its length.
     */
    @Test
    void aSpinYieldsItsCoreBetweenLooksFromItsStart() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, LONG_SPIN);
        Spinners spinners = new Spinners(() -> 1, 0);
        PollingInput in = polling(budget, spinners);
        Thread t = writeWhen(() -> spinners.spinning() == 1, new byte[] {5}, () -> { });
        assertEquals(5, in.read());
        t.join();
        assertEquals(List.of(true), budget.answeredSpinning);
        assertTrue(in.yields() > 0, "the spin never yielded");
    }

    /**
     * A read that starts over {@link PollingInput#PAUSE_NANOS} after the stream's last data blocks
     * at once, with no look for data and no budget asked: the peer slept through the pause, and a
     * spin here would send its wake-up to an idle core. A read soon after data spins as before.
     */
    @Test
    void aReadAfterAPauseBlocksAtOnceWithoutLooking() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, LONG_SPIN);
        Spinners spinners = new Spinners(() -> 1, 0);
        int[] looks = new int[1];
        InputStream counting = countingLooks(looks);
        PollingInput in = new PollingInput(counting, () -> budget, spinners, null, PollingInput.PAUSE_NANOS);
        Thread first = writeWhen(() -> spinners.spinning() == 1, new byte[] {1}, () -> { });
        assertEquals(1, in.read());
        first.join();
        assertEquals(List.of(true), budget.answeredSpinning, "the first wait spun");

        Thread.sleep(TimeUnit.NANOSECONDS.toMillis(PollingInput.PAUSE_NANOS) + 20);
        int looksBefore = looks[0];
        int asksBefore = budget.spinAsked;
        Thread second = writeWhen(() -> true, new byte[] {2}, () -> { });
        assertEquals(2, in.read());
        second.join();
        assertEquals(1, in.afterPauses(), "the read after the pause was not told from the others");
        assertEquals(looksBefore, looks[0], "a look for data after the pause");
        assertEquals(asksBefore, budget.spinAsked, "the budget was asked after the pause");
        assertEquals(List.of(true), budget.answeredSpinning, "a blocked read after a pause teaches the budget nothing");
    }

    @Test
    void aColdGroupsFirstReadsReadAsStockDoes() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, LONG_SPIN);
        Spinners spinners = new Spinners(() -> 1, 2);
        PollingInput in = polling(budget, spinners);
        writer.getOutputStream().write(new byte[] {1, 2, 3});
        assertEquals(1, in.read());
        assertEquals(2, in.read());
        assertEquals(0, budget.spinAsked, "no budget asked while cold");
        assertEquals(3, in.read());
        assertEquals(1, budget.spinAsked, "asked once warm");
    }

    @Test
    void noSpinBlocksAndCountsTheWakeUp() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, 0);
        Spinners spinners = new Spinners(() -> 1, 0);
        PollingInput in = polling(budget, spinners);
        Thread t = writeWhen(() -> budget.spinAsked == 1, new byte[] {7}, () -> { });
        assertEquals(7, in.read());
        t.join();
        assertEquals(List.of(false), budget.answeredSpinning);
        assertEquals(1, spinners.wakeUps());
    }

    @Test
    void aMachineWhereNoWaitMaySpinReadsAsStockDoes() throws Exception {
        RecordingBudget budget = new RecordingBudget(false, LONG_SPIN);
        Spinners spinners = new Spinners(() -> 1, 0);
        PollingInput in = polling(budget, spinners);
        Thread t = writeWhen(() -> true, new byte[] {9}, () -> { });
        assertEquals(9, in.read());
        t.join();
        assertEquals(0, budget.spinAsked, "no budget asked");
        assertTrue(budget.answeredSpinning.isEmpty(), "nothing learnt");
        assertEquals(0, spinners.wakeUps(), "no wake-up counted");
    }

    @Test
    void bytesAlreadyThereAreNoWait() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, LONG_SPIN);
        PollingInput in = polling(budget, new Spinners(() -> 1, 0));
        writer.getOutputStream().write(new byte[] {4, 5});
        while (reader.getInputStream().available() < 2) {
            Thread.sleep(1);
        }
        byte[] got = new byte[2];
        assertEquals(2, readFully(in, got));
        assertArrayEquals(new byte[] {4, 5}, got);
        assertTrue(budget.answeredSpinning.isEmpty(), "nothing learnt");
    }

    /**
     * A stream whose budget says no spin reads as stock's does, with no look for data first (a
     * system call stock does not make), and learns from a read that waited.
     */
    @Test
    void aBudgetWithNoSpinNeverLooksForData() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, 0);
        Spinners spinners = new Spinners(() -> 1, 0);
        int[] looks = new int[1];
        InputStream counting = countingLooks(looks);
        PollingInput in = new PollingInput(counting, () -> budget, spinners, null, NO_PAUSE);
        Thread t = writeWhen(() -> budget.spinAsked == 1, new byte[] {2}, () -> { });
        assertEquals(2, in.read());
        t.join();
        assertEquals(List.of(false), budget.answeredSpinning, "the wait was learnt");
        assertEquals(1, spinners.wakeUps(), "and counted as a wake-up");
        assertEquals(0, looks[0], "no look for data");
    }

    @Test
    void onlySoManyThreadsSpinAtOnce() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, LONG_SPIN);
        Spinners full = new Spinners(() -> 0, 0);
        PollingInput in = polling(budget, full);
        Thread t = writeWhen(() -> budget.spinAsked == 1, new byte[] {1}, () -> { });
        assertEquals(1, in.read());
        t.join();
        assertTrue(budget.answeredSpinning.isEmpty(), "blocked with no place to spin: the wait says nothing of the stream");
        assertEquals(1, full.wakeUps(), "a wake-up");
    }

    @Test
    void anotherThreadsWakeUpEndsTheSpinAndTheNextWaitBlocksAtOnce() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, LONG_SPIN);
        Spinners spinners = new Spinners(() -> 1, 0);
        PollingInput in = polling(budget, spinners);
        // While the reader spins, another thread of the group is woken (a callback's handler):
        // the reader stops spinning and blocks, though its spin has 30 s left.
        Thread t = writeWhen(() -> spinners.spinning() == 1, new byte[] {1}, spinners::wokeUp);
        assertEquals(1, in.read());
        t.join();
        assertEquals(List.of(false), budget.answeredSpinning);
        assertEquals(1, budget.spinAsked);
        // The next wait does not spin at all: the group has other calls in flight.
        Thread t2 = writeWhen(() -> true, new byte[] {2}, () -> { });
        assertEquals(2, in.read());
        t2.join();
        assertEquals(1, budget.spinAsked, "the second wait asked for no spin");
        assertFalse(budget.answeredSpinning.contains(true));
        assertEquals(3, spinners.wakeUps(), "the test's wake-up, then both blocked reads");
        // After a wait without others' wake-ups, it spins again.
        Thread t3 = writeWhen(() -> spinners.spinning() == 1, new byte[] {3}, () -> { });
        assertEquals(3, in.read());
        t3.join();
        assertEquals(2, budget.spinAsked);
        assertEquals(true, budget.answeredSpinning.get(budget.answeredSpinning.size() - 1));
    }

    @Test
    void withoutABudgetReadsBlockAndEndOfStreamIsSeen() throws Exception {
        Spinners spinners = new Spinners(() -> 1, 0);
        PollingInput in = new PollingInput(reader.getInputStream(), () -> null, spinners, null, NO_PAUSE);
        Thread t = writeWhen(() -> true, new byte[] {6}, () -> { });
        assertEquals(6, in.read());
        t.join();
        writer.shutdownOutput();
        assertEquals(-1, in.read());
        assertEquals(0, spinners.wakeUps());
    }

    @Test
    void endOfStreamWhileSpinning() throws Exception {
        RecordingBudget budget = new RecordingBudget(true, TimeUnit.MILLISECONDS.toNanos(20));
        PollingInput in = polling(budget, new Spinners(() -> 1, 0));
        writer.shutdownOutput();
        assertEquals(-1, in.read(new byte[4], 0, 4));
        assertFalse(budget.answeredSpinning.isEmpty());
    }

    private static int readFully(InputStream in, byte[] into) throws IOException {
        int total = 0;
        while (total < into.length) {
            int n = in.read(into, total, into.length - total);
            if (n < 0) {
                break;
            }
            total += n;
        }
        return total;
    }
}
