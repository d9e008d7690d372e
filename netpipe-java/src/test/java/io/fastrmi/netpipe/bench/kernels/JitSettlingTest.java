package io.fastrmi.netpipe.bench.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class JitSettlingTest {

    @Test
    void aJvmThatDoesNotReportIsNotWaitedFor() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        long waited = JitSettling.await(() -> {
            polls.incrementAndGet();
            return -1;
        }, 10_000, 60_000);
        assertEquals(0, waited);
        assertEquals(1, polls.get(), "asked once");
    }

    @Test
    void itWaitsUntilTheCompileTimeStopsMovingThenForTheQuietPeriod() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        long waited = JitSettling.await(() -> {
            int n = polls.incrementAndGet();
            return Math.min(n, 6) * 10L; // moves for the first six looks, then stays
        }, 100, 60_000);
        assertTrue(polls.get() >= 7, "kept looking while it moved: " + polls.get() + " looks");
        assertTrue(waited >= 100, "waited the quiet period after the last move: " + waited + " ms");
    }

    @Test
    void aCompilerThatNeverSettlesIsWaitedForAtMostTheLimit() throws Exception {
        AtomicInteger polls = new AtomicInteger();
        long waited = JitSettling.await(() -> polls.incrementAndGet(), 1_000, 200);
        assertTrue(waited >= 200, "waited up to the limit: " + waited + " ms");
        assertTrue(polls.get() >= 2, "looked more than once");
    }
}
