package io.fastrmi.netpipe.bench.kernels;

/**
 * What a kernel's timed calls cost one JVM ({@link ThreadCosts#since}): time on a CPU, how many
 * times its threads were put on one, and the bytes they allocated. Unlike a call's latency it does
 * not depend on where the scheduler happens to put the two JVMs' threads, so it tells two
 * transports apart on a noisy machine where their latencies cannot.
 */
public record ProcessCost(long cpuNanos, long switches, long allocatedBytes) {

    public ProcessCost plus(ProcessCost other) {
        return new ProcessCost(cpuNanos + other.cpuNanos, switches + other.switches, allocatedBytes + other.allocatedBytes);
    }
}
