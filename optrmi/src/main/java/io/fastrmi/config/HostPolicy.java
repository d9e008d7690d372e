package io.fastrmi.config;

import io.fastrmi.optrmi.Optimization;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What FastRMI may do with one host: whether it is inside at all ({@code optimize}), which lean-format
 * optimizations to offer, the transports to offer in order of preference, and the ports on which
 * that host's listeners are JVMs with scope = jvm ({@code jvmPorts}: where a JVM with scope = jvm
 * offers across hosts).
 */
public record HostPolicy(boolean optimize, Set<Optimization> optimizations, List<TransportName> transports,
        PortRanges jvmPorts) {

    public HostPolicy {
        optimizations = optimizations.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(optimizations));
        transports = List.copyOf(transports);
    }

    /** A policy that names no scope = jvm listeners. */
    public HostPolicy(boolean optimize, Set<Optimization> optimizations, List<TransportName> transports) {
        this(optimize, optimizations, transports, PortRanges.NONE);
    }

    /** This policy with the lean format over RMI's own socket only: no native transport. */
    public HostPolicy tcpOnly() {
        return new HostPolicy(optimize, optimizations, List.of(TransportName.TCP), jvmPorts);
    }

    /** An outside host: standard RMI over plain TCP. */
    public static final HostPolicy OUTSIDE = new HostPolicy(false, Set.of(), List.of(TransportName.TCP));

    /**
     * An inside host with every optimization and the fastest same-host transport first. (ofi:shm
     * is left out of the default until its first-connection trouble is solved: see the issue notes.)
     */
    public static final HostPolicy INSIDE_LOCAL =
            new HostPolicy(true, Optimization.all(), List.of(TransportName.parse("ucx:shm"), TransportName.TCP));
}
