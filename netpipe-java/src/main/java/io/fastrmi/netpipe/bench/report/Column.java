package io.fastrmi.netpipe.bench.report;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * One column of the tables: stock RMI (no agent), or the agent with one transport first in its
 * config. An agent column named {@code TRANSPORT@key=value@...} also puts those keys in its config,
 * global ones before the section (e.g. {@code ucx:shm@wait=spin}) and host ones in it (e.g.
 * {@code ucx:shm@optimizations=all}, the lean format), so that two variants run side by side;
 * {@code @agent=JAR} runs that column under another agent jar (a build before a change, say), so
 * that two builds are measured in one run.
 */
public record Column(String name, String transport, List<String> globalLines, List<String> hostLines, Optional<Path> agentJar) {

    public static final Column STOCK = new Column("stock", null, List.of(), List.of(), Optional.empty());

    private static final String AGENT_KEY = "agent=";

    public static Column agentOn(String spec) {
        String[] parts = spec.split("@");
        List<String> settings = Arrays.stream(parts).skip(1).toList();
        Optional<Path> agentJar = settings.stream().filter(s -> s.startsWith(AGENT_KEY))
                .map(s -> Path.of(s.substring(AGENT_KEY.length()))).reduce((first, second) -> second);
        List<String> global = settings.stream().filter(s -> !s.startsWith(AGENT_KEY) && !isHostKey(s))
                .map(kv -> kv.replaceFirst("=", " = ")).toList();
        List<String> host = settings.stream().filter(Column::isHostKey).map(kv -> kv.replaceFirst("=", " = ")).toList();
        return new Column(spec, parts[0], global, host, agentJar);
    }

    private static boolean isHostKey(String setting) {
        int equals = setting.indexOf('=');
        return equals > 0 && io.fastrmi.config.FastRmiConfig.HOST_KEYS.contains(setting.substring(0, equals));
    }

    /**
     * The config of an agent column: both ends inside ({@code insideSection}), the column's transport
     * first, then TCP, and every optimization (the lean format), as the built-in config has it, unless
     * the column says otherwise ({@code ucx:shm@optimizations=none}).
     */
    public List<String> configLines(String insideSection) {
        String transports = transport.equals("tcp") ? "tcp" : transport + ", tcp";
        List<String> lines = new java.util.ArrayList<>(globalLines);
        lines.addAll(List.of(insideSection, "optimize = on", "transports = " + transports));
        if (hostLines.stream().noneMatch(line -> line.startsWith("optimizations"))) {
            lines.add("optimizations = all");
        }
        lines.addAll(hostLines);
        return lines;
    }

    public boolean withAgent() {
        return transport != null;
    }

    /** The name, made fit for a file name ("ofi:tcp;ofi_rxm" has characters that are not). */
    public String fileName() {
        return name.replaceAll("[^A-Za-z0-9_.-]", "_");
    }
}
