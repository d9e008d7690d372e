package io.fastrmi.fastsockets.config;

import java.util.List;
import java.util.Set;

/**
 * What FastRMI may do with one host: whether it is inside at all ({@code optimize}), which lean-format
 * optimizations to offer, and the transports to offer in order of preference.
 */
public record HostPolicy(boolean optimize, Set<String> optimizations, List<String> transports) {

    /** The lean-format optimizations a host section may name. */
    public static final Set<String> KNOWN_OPTIMIZATIONS =
            Set.of("class-table", "no-annotations", "block-data", "bulk-arrays");

    public HostPolicy {
        optimizations = Set.copyOf(optimizations);
        transports = List.copyOf(transports);
    }

    /** An outside host: standard RMI over plain TCP. */
    public static final HostPolicy OUTSIDE = new HostPolicy(false, Set.of(), List.of("tcp"));

    /**
     * An inside host with every optimization and the fastest same-host transport first. (ofi:shm
     * is left out of the default until its first-connection trouble is solved: see the issue notes.)
     */
    public static final HostPolicy INSIDE_LOCAL =
            new HostPolicy(true, KNOWN_OPTIMIZATIONS, List.of("ucx:shm", "tcp"));
}
