package io.fastrmi.netpipe.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.netpipe.bench.kernels.ProcessCost;
import io.fastrmi.netpipe.bench.kernels.ThreadCosts;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

class ProcessCostTest {

    @Test
    void countsTheCpuTimeThisJvmsThreadsSpend() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ThreadCosts before = ThreadCosts.ofThisProcess();
        long start = threads.getCurrentThreadCpuTime();
        long sink = 0;
        while (threads.getCurrentThreadCpuTime() - start < 50_000_000L) { // 50 ms of this thread's CPU
            sink += System.nanoTime() % 7;
        }
        ProcessCost spent = ThreadCosts.ofThisProcess().since(before);
        assertTrue(spent.cpuNanos() >= 45_000_000L, "counted " + spent.cpuNanos() + " ns of CPU (sink " + sink + ")");
    }

    @Test
    void countsEveryTimeAThreadIsPutOnACpuAgain() throws InterruptedException {
        ThreadCosts before = ThreadCosts.ofThisProcess();
        for (int i = 0; i < 20; i++) {
            Thread.sleep(1);
        }
        ProcessCost spent = ThreadCosts.ofThisProcess().since(before);
        assertTrue(spent.switches() >= 20, "counted " + spent.switches() + " switches for 20 sleeps");
    }

    @Test
    void countsTheBytesThisProcessAllocates() {
        ThreadCosts before = ThreadCosts.ofThisProcess();
        byte[][] kept = new byte[100][];
        for (int i = 0; i < kept.length; i++) {
            kept[i] = new byte[10_000];
        }
        long allocated = ThreadCosts.ofThisProcess().since(before).allocatedBytes();
        assertTrue(allocated >= 1_000_000 && kept.length == 100, "counted " + allocated + " bytes for 100 arrays of 10,000");
    }

    @Test
    void theAllocationLineGivesBytesPerCallOnEachSide() {
        assertEquals("ALLOC null 250 4500",
                BenchClient.allocationLine("null", 4, new ProcessCost(0, 0, 1_000), new ProcessCost(0, 0, 18_000)));
    }

    @Test
    void travelsAsLongsAndAddsUp() {
        ThreadCosts now = ThreadCosts.ofThisProcess();
        assertEquals(new ProcessCost(0, 0, 0), ThreadCosts.of(now.toArray()).since(now));
        ProcessCost cost = new ProcessCost(1_500, 3, 40);
        assertEquals(new ProcessCost(3_000, 6, 80), cost.plus(cost));
    }

    /** A thread that spent much before the first look and ended before the second takes nothing from the sum. */
    @Test
    void aThreadThatEndsBetweenTheLooksTakesNothingAway() throws InterruptedException {
        java.util.concurrent.CountDownLatch spent = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch counted = new java.util.concurrent.CountDownLatch(1);
        Thread busy = new Thread(() -> {
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long start = threads.getCurrentThreadCpuTime();
            byte[][] kept = new byte[200][];
            for (int i = 0; threads.getCurrentThreadCpuTime() - start < 50_000_000L; i++) {
                kept[i % kept.length] = new byte[10_000];
            }
            spent.countDown();
            try {
                counted.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        busy.start();
        spent.await();
        ThreadCosts before = ThreadCosts.ofThisProcess();
        counted.countDown();
        busy.join();
        ProcessCost since = ThreadCosts.ofThisProcess().since(before);
        assertTrue(since.cpuNanos() >= 0 && since.switches() >= 0 && since.allocatedBytes() >= 0, "counted " + since);
    }

    /** What the driver waits on before a run of first calls: it moves while this JVM's JIT compiles. */
    @Test
    void theCompilerThreadsCpuTimeOfAJvmIsReadFromProc() throws InterruptedException {
        long pid = ProcessHandle.current().pid();
        long before = ThreadCosts.compilerNanos(pid);
        assertTrue(before > 0, "this JVM has compiled something: " + before);
        long sum = 0;
        long deadline = System.nanoTime() + 10_000_000_000L;
        long after = before;
        while (after == before && System.nanoTime() < deadline) {
            for (int i = 0; i < 200_000; i++) {
                sum += Long.toString(i * 31L + sum % 7).hashCode(); // hot enough to be compiled again
            }
            Thread.sleep(20);
            after = ThreadCosts.compilerNanos(pid);
        }
        assertTrue(after > before, "compiling a hot loop moved it: " + before + " -> " + after + " (" + sum + ")");
        assertEquals(-1, ThreadCosts.compilerNanos(Long.MAX_VALUE), "no such process");
    }

    @Test
    void theClientsKernelLineIsTheOneTheDriverReads() {
        Matcher line = BenchClient.KERNEL.matcher(BenchClient.kernelLine("echo-int", 12.345, 99.5, 4, new ProcessCost(100_000, 9, 0)));
        assertTrue(line.matches(), "unread: " + line);
        assertEquals("echo-int", line.group(1));
        assertEquals(12.35, Double.parseDouble(line.group(2)));
        assertEquals(25.0, Double.parseDouble(line.group(5)), "CPU us per call");
        assertEquals(2.25, Double.parseDouble(line.group(6)), "switches per call");
    }
}
