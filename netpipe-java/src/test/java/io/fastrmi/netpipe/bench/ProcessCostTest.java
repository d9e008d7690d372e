package io.fastrmi.netpipe.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.netpipe.bench.kernels.ProcessCost;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

class ProcessCostTest {

    @Test
    void countsTheCpuTimeThisJvmsThreadsSpend() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ProcessCost before = ProcessCost.ofThisProcess();
        long start = threads.getCurrentThreadCpuTime();
        long sink = 0;
        while (threads.getCurrentThreadCpuTime() - start < 50_000_000L) { // 50 ms of this thread's CPU
            sink += System.nanoTime() % 7;
        }
        ProcessCost spent = ProcessCost.ofThisProcess().since(before);
        assertTrue(spent.cpuNanos() >= 45_000_000L, "counted " + spent.cpuNanos() + " ns of CPU (sink " + sink + ")");
    }

    @Test
    void countsEveryTimeAThreadIsPutOnACpuAgain() throws InterruptedException {
        ProcessCost before = ProcessCost.ofThisProcess();
        for (int i = 0; i < 20; i++) {
            Thread.sleep(1);
        }
        ProcessCost spent = ProcessCost.ofThisProcess().since(before);
        assertTrue(spent.switches() >= 20, "counted " + spent.switches() + " switches for 20 sleeps");
    }

    @Test
    void countsTheBytesThisProcessAllocates() {
        ProcessCost before = ProcessCost.ofThisProcess();
        byte[][] kept = new byte[100][];
        for (int i = 0; i < kept.length; i++) {
            kept[i] = new byte[10_000];
        }
        long allocated = ProcessCost.ofThisProcess().since(before).allocatedBytes();
        assertTrue(allocated >= 1_000_000 && kept.length == 100, "counted " + allocated + " bytes for 100 arrays of 10,000");
    }

    @Test
    void theAllocationLineGivesBytesPerCallOnEachSide() {
        assertEquals("ALLOC null 250 4500",
                BenchClient.allocationLine("null", 4, new ProcessCost(0, 0, 1_000), new ProcessCost(0, 0, 18_000)));
    }

    @Test
    void travelsAsThreeLongsAndAddsUp() {
        ProcessCost cost = new ProcessCost(1_500, 3, 40);
        assertEquals(cost, ProcessCost.of(cost.toArray()));
        assertEquals(new ProcessCost(3_000, 6, 80), cost.plus(cost));
        assertEquals(new ProcessCost(0, 0, 0), cost.since(cost));
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
