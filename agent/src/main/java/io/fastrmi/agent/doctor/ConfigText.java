package io.fastrmi.agent.doctor;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.config.HostPattern;
import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.TransportName;
import io.fastrmi.optrmi.Optimization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A parsed config written back in the config file's own format: the global keys, {@code [defaults]},
 * then each {@code [host ...]} section (in the order that decides which one matches) with the line it
 * came from. Every key is written out, also those the file left at their default.
 */
public final class ConfigText {

    private ConfigText() {
    }

    public static List<String> lines(FastRmiConfig config) {
        List<String> lines = new ArrayList<>();
        lines.add("scope = " + config.scope().name().toLowerCase(Locale.ROOT));
        lines.add("plain-ttl = " + duration(config.plainTtl()));
        lines.add("spin = " + duration(config.spin()));
        lines.add("wait = " + config.waitMode().configName());
        lines.add("warm-up = " + (config.warmUp() ? "on" : "off"));
        config.nativeLibrary().ifPresent(path -> lines.add("native-library = " + path));
        lines.add("offer-ports = " + config.offerPorts());
        lines.add("");
        lines.add("[defaults]");
        policy(lines, config.defaults());
        for (FastRmiConfig.HostSection section : config.hosts()) {
            lines.add("");
            lines.add(sectionHeader(section) + "    # " + where(section));
            policy(lines, section.policy());
        }
        return lines;
    }

    /** {@code [host PATTERN...]}, as the file wrote it. */
    public static String sectionHeader(FastRmiConfig.HostSection section) {
        List<String> patterns = new ArrayList<>();
        for (HostPattern pattern : section.patterns()) {
            patterns.add(pattern.toString());
        }
        return "[host " + String.join(" ", patterns) + "]";
    }

    /** Where a section came from: its line in the file, or the built-in defaults (line 0). */
    public static String where(FastRmiConfig.HostSection section) {
        return section.line() > 0 ? "line " + section.line() : "built in";
    }

    private static void policy(List<String> lines, HostPolicy policy) {
        lines.add("optimize = " + (policy.optimize() ? "on" : "off"));
        lines.add("optimizations = " + optimizations(policy.optimizations()));
        lines.add("transports = " + transports(policy.transports()));
        lines.add("jvm-ports = " + policy.jvmPorts());
    }

    /** {@code all}, {@code none}, or the names in their fixed order (that of the handshake's bits). */
    public static String optimizations(Collection<Optimization> optimizations) {
        if (optimizations.isEmpty()) {
            return "none";
        }
        if (optimizations.containsAll(Optimization.all())) {
            return "all";
        }
        return Optimization.configNames(optimizations, ", ");
    }

    /** The names as the config writes them, "ucx:shm, tcp". */
    public static String transports(Collection<TransportName> transports) {
        return transports.stream().map(TransportName::toString).collect(Collectors.joining(", "));
    }

    /** A duration in the file's units: the largest of h, m, s, ms that states it exactly. */
    public static String duration(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos % 1_000_000 != 0) {
            return nanos / 1000 + "us";
        }
        long millis = duration.toMillis();
        if (millis != 0 && millis % 3_600_000 == 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis != 0 && millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        if (millis % 1000 == 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }
}
