package io.fastrmi.netpipe.bench.compare;

import java.util.List;

/**
 * What a side-by-side run measures: the KaRMI kernels (seed 001, section 6.1) with their objects, the
 * array sweeps, and the NetPIPE settings each client runs them with. {@link #FULL} is the whole
 * collection; {@link #QUICK} is {@code make demo}'s, a few minutes in all.
 */
public record ComparePlan(String name, List<String> kernels, List<String> sweeps, List<String> clientOptions, int floorIterations) {

    static final ComparePlan FULL = new ComparePlan("full",
            List.of("ping", "ping-ii", "ping-iiff", "obj/null", "obj/int32", "obj/int4null2", "obj/tree15", "obj/float:50",
                    "obj/float:200", "obj/float:500", "obj/float:2000", "obj/float:5000", "obj/float:20000",
                    "pingpong/tree15", "star/tree15"),
            List.of("byte", "double", "byte-one-way"),
            List.of("-u", String.valueOf(8 * 1024 * 1024), "--warmup", "10000", "--trials", "3"), 100_000);

    static final ComparePlan QUICK = new ComparePlan("quick",
            List.of("ping", "obj/int32", "obj/tree15", "obj/float:5000", "pingpong/tree15", "star/tree15"),
            List.of("byte"),
            List.of("-l", "64", "-u", String.valueOf(1024 * 1024), "-p", "0", "--warmup", "2000", "--trials", "3", "--trial-time", "0.05",
                    "--stop-time", "0.1"), 20_000);

    /** Every item a client reports, in table order: the kernels, then a sweep's item per sweep. */
    List<String> items() {
        List<String> items = new java.util.ArrayList<>(kernels);
        sweeps.forEach(sweep -> items.add("sweep-" + sweep));
        return items;
    }
}
