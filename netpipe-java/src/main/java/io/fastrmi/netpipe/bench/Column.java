package io.fastrmi.netpipe.bench;

import java.util.List;

/**
 * One column of the tables: stock RMI (no agent), or the agent with one transport first in its
 * config. An agent column named {@code TRANSPORT@key=value@...} also puts those global keys in its
 * config (e.g. {@code ucx:shm@wait=spin}), so that two ways of waiting can be set side by side.
 */
record Column(String name, String transport, List<String> globalLines) {

    static final Column STOCK = new Column("stock", null, List.of());

    static Column agentOn(String spec) {
        String[] parts = spec.split("@");
        List<String> lines = java.util.Arrays.stream(parts).skip(1).map(kv -> kv.replaceFirst("=", " = ")).toList();
        return new Column(spec, parts[0], lines);
    }

    boolean withAgent() {
        return transport != null;
    }

    /** The name, made fit for a file name ("ofi:tcp;ofi_rxm" has characters that are not). */
    String fileName() {
        return name.replaceAll("[^A-Za-z0-9_.-]", "_");
    }
}
