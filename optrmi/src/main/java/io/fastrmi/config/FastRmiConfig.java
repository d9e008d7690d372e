package io.fastrmi.config;

import io.fastrmi.optrmi.Optimization;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parsed config file. Format (one per cluster, on a shared file system):
 *
 * <pre>
 * # comments run to the end of the line
 * scope = rmi                 # global keys come before any section: scope (rmi|jvm), plain-ttl
 * plain-ttl = 300s
 * spin = 20us                 # the longest a thread waiting on a native stream or a fast tcp connection polls before it blocks
 * wait = adaptive             # adaptive (spin while it pays), spin (always the whole spin) or block
 * binding = jni               # how the native library is called: jni (the default) or ffm (JDK 22+)
 * warm-up = on                # run the lean codec over memory at the first lean connection, so the JIT compiles it early
 * native-library = /opt/fastrmi/libfastrmi.so   # else the copy inside the agent jar
 * offer-ports = 61000-61999   # scope = jvm: local ports of offers to other hosts
 *
 * [defaults]                  # hosts that no [host] section names
 * optimize = off
 *
 * [host local 10.1.0.0/16 node*.cluster]   # first matching section wins
 * optimize = on
 * optimizations = all         # or a list: class-table, no-annotations, block-data, bulk-arrays
 * transports = ofi:shm, ucx:shm, ofi:tcp;ofi_rxm, tcp
 * jvm-ports = 9000-9099       # scope = jvm: ports of these hosts whose listeners take offers
 * </pre>
 *
 * Without a file, {@link #builtIn()}: this machine inside, every other host outside.
 */
public record FastRmiConfig(String source, Scope scope, Duration plainTtl, Duration spin, WaitMode waitMode,
        Optional<Path> nativeLibrary, String binding, boolean warmUp,
        PortRanges offerPorts, HostPolicy defaults, List<HostSection> hosts) {

    public enum Scope { RMI, JVM }

    /** A {@code [host ...]} section: its patterns and what they get. */
    public record HostSection(List<HostPattern> patterns, HostPolicy policy, int line) {
        public HostSection {
            patterns = List.copyOf(patterns);
        }
    }

    static final Set<String> GLOBAL_KEYS = Set.of("scope", "plain-ttl", "spin", "wait", "native-library",
            "binding", "warm-up", "offer-ports");
    /** The keys of a host section ({@code [defaults]}, {@code [host ...]}). */
    public static final Set<String> HOST_KEYS = Set.of("optimize", "optimizations", "transports", "jvm-ports");
    /**
     * The local ports a JVM with scope = jvm connects from when it offers to another host: above
     * Linux's default ephemeral range (32768-60999), so that no other client uses them by chance.
     */
    static final PortRanges DEFAULT_OFFER_PORTS = PortRanges.parse("61000-61999");
    private static final Duration DEFAULT_PLAIN_TTL = Duration.ofMinutes(5);
    /** How long a thread waiting on a native stream polls before it blocks in the kernel. */
    static final Duration DEFAULT_SPIN = Duration.ofNanos(20_000);

    public FastRmiConfig {
        hosts = List.copyOf(hosts);
    }

    public static FastRmiConfig builtIn() {
        return new FastRmiConfig("built-in defaults", Scope.RMI, DEFAULT_PLAIN_TTL, DEFAULT_SPIN, WaitMode.ADAPTIVE,
                Optional.empty(), "", true,
                DEFAULT_OFFER_PORTS, HostPolicy.OUTSIDE,
                List.of(new HostSection(List.of(HostPattern.parse("local")), HostPolicy.INSIDE_LOCAL, 0)));
    }

    /** The policy for the host called {@code name} at {@code address} (either may be null). */
    public HostPolicy policyFor(String name, InetAddress address) {
        for (HostSection section : hosts) {
            for (HostPattern pattern : section.patterns()) {
                if (pattern.matches(name, address)) {
                    return section.policy();
                }
            }
        }
        return defaults;
    }

    /** Every transport some host may be offered, in the order first named (defaults first). */
    public List<TransportName> allTransports() {
        Set<TransportName> all = new LinkedHashSet<>();
        if (defaults.optimize()) {
            all.addAll(defaults.transports());
        }
        for (HostSection section : hosts) {
            if (section.policy().optimize()) {
                all.addAll(section.policy().transports());
            }
        }
        return List.copyOf(all);
    }

    /** Every key a file or an override may set, sorted. */
    public static List<String> keys() {
        return Parser.sorted(GLOBAL_KEYS, HOST_KEYS);
    }

    /** Whether some host's listeners are named for scope = jvm ({@code jvm-ports}), so offers may cross hosts. */
    public boolean namesJvmPorts() {
        if (!defaults.jvmPorts().ranges().isEmpty()) {
            return true;
        }
        for (HostSection section : hosts) {
            if (!section.policy().jvmPorts().ranges().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Whether some section names hosts by name, so that matching a peer needs its name (a reverse lookup). */
    public boolean usesHostNames() {
        for (HostSection section : hosts) {
            for (HostPattern pattern : section.patterns()) {
                if (pattern.needsName()) {
                    return true;
                }
            }
        }
        return false;
    }

    public static FastRmiConfig load(Path file) throws ConfigException {
        List<String> lines = new ArrayList<>();
        // java.io, not Files.readAllLines: premain reads the config, and NIO's channel classes are not loaded yet then.
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(file.toFile()),
                StandardCharsets.UTF_8.newDecoder()))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
            }
        } catch (IOException e) {
            throw new ConfigException(file.toString(), 0, "cannot read the config file: " + e);
        }
        return parse(file.toString(), lines);
    }

    public static FastRmiConfig parse(String source, List<String> lines) throws ConfigException {
        return new Parser(source).parse(lines);
    }

    /**
     * This config with {@code -Dfastrmi.KEY} and {@code FASTRMI_KEY} overrides applied (a property
     * wins over the environment); a host key applies to every host, {@code [defaults]} and each
     * {@code [host]} section alike (so {@code -Dfastrmi.optimize=off} switches FastRMI off). An unknown
     * {@code fastrmi.*} property is an error; unknown {@code FASTRMI_*} variables are left alone (that
     * name space is shared with scripts and tools).
     */
    public FastRmiConfig withOverrides(Map<String, String> properties, Map<String, String> environment)
            throws ConfigException {
        for (String property : properties.keySet()) {
            if (property.startsWith("fastrmi.") && !property.equals("fastrmi.config")) {
                String key = property.substring("fastrmi.".length());
                if (!GLOBAL_KEYS.contains(key) && !HOST_KEYS.contains(key)) {
                    throw new ConfigException("-D" + property, 0, "unknown key '" + key + "' (expected one of: "
                            + String.join(", ", Parser.sorted(GLOBAL_KEYS, HOST_KEYS)) + ", config)");
                }
            }
        }
        Parser parser = new Parser(source);
        parser.scope = scope;
        parser.plainTtl = plainTtl;
        parser.spin = spin;
        parser.waitMode = waitMode;
        parser.nativeLibrary = nativeLibrary;
        parser.binding = binding;
        parser.warmUp = warmUp;
        parser.offerPorts = offerPorts;
        // A host key given for this JVM wins over the file for every host: defaults and sections alike.
        PolicyBuilder defaultsBuilder = new PolicyBuilder(defaults);
        List<PolicyBuilder> sectionBuilders = new ArrayList<>();
        for (HostSection section : hosts) {
            sectionBuilders.add(new PolicyBuilder(section.policy()));
        }
        List<String> keys = new ArrayList<>(GLOBAL_KEYS);
        keys.addAll(HOST_KEYS);
        keys.sort(null);
        for (String key : keys) {
            String envName = "FASTRMI_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
            String value = properties.get("fastrmi." + key);
            String origin = "-Dfastrmi." + key;
            if (value == null) {
                value = environment.get(envName);
                origin = envName;
            }
            if (value == null) {
                continue;
            }
            if (GLOBAL_KEYS.contains(key)) {
                parser.apply(origin, 0, key, value.trim(), null);
            } else {
                parser.apply(origin, 0, key, value.trim(), defaultsBuilder);
                for (PolicyBuilder section : sectionBuilders) {
                    parser.apply(origin, 0, key, value.trim(), section);
                }
            }
        }
        List<HostSection> overridden = new ArrayList<>();
        for (int i = 0; i < hosts.size(); i++) {
            HostSection section = hosts.get(i);
            overridden.add(new HostSection(section.patterns(), sectionBuilders.get(i).build(), section.line()));
        }
        return new FastRmiConfig(source, parser.scope, parser.plainTtl, parser.spin, parser.waitMode, parser.nativeLibrary,
                parser.binding, parser.warmUp, parser.offerPorts,
                defaultsBuilder.build(), overridden);
    }

    /** A host policy under construction: unset keys keep the values it started from. */
    private static final class PolicyBuilder {
        boolean optimize;
        Set<Optimization> optimizations;
        List<TransportName> transports;
        PortRanges jvmPorts;

        PolicyBuilder(HostPolicy start) {
            optimize = start.optimize();
            optimizations = start.optimizations();
            transports = start.transports();
            jvmPorts = start.jvmPorts();
        }

        HostPolicy build() {
            return new HostPolicy(optimize, optimizations, transports, jvmPorts);
        }
    }

    private static final class Parser {
        // Compiled once: premain parses the config, and each compile costs the interpreter a few hundred µs.
        private static final Pattern DURATION = Pattern.compile("(\\d+)(us|ms|s|m|h)");
        private static final Pattern WHITESPACE = Pattern.compile("\\s+");
        private final String source;
        Scope scope = Scope.RMI;
        Duration plainTtl = DEFAULT_PLAIN_TTL;
        Duration spin = DEFAULT_SPIN;
        WaitMode waitMode = WaitMode.ADAPTIVE;
        Optional<Path> nativeLibrary = Optional.empty();
        /** "" (the JDK's default), "ffm" or "jni". */
        String binding = "";
        boolean warmUp = true;
        PortRanges offerPorts = DEFAULT_OFFER_PORTS;

        Parser(String source) {
            this.source = source;
        }

        FastRmiConfig parse(List<String> lines) throws ConfigException {
            PolicyBuilder defaults = new PolicyBuilder(HostPolicy.OUTSIDE);
            List<HostSection> hosts = new ArrayList<>();
            List<HostPattern> patterns = null;
            PolicyBuilder current = null;
            int sectionLine = 0;
            boolean seenDefaults = false;
            for (int i = 0; i < lines.size(); i++) {
                int number = i + 1;
                String line = stripComment(lines.get(i)).trim();
                if (line.isEmpty()) {
                    continue;
                }
                if (line.startsWith("[")) {
                    if (patterns != null) {
                        hosts.add(new HostSection(patterns, current.build(), sectionLine));
                        patterns = null;
                    }
                    if (!line.endsWith("]")) {
                        throw new ConfigException(source, number, "section header '" + line + "' has no closing ']'");
                    }
                    String[] words = WHITESPACE.split(line.substring(1, line.length() - 1).trim());
                    if (words.length == 1 && words[0].equals("defaults")) {
                        if (seenDefaults) {
                            throw new ConfigException(source, number, "a second [defaults] section");
                        }
                        seenDefaults = true;
                        current = defaults;
                    } else if (words[0].equals("host")) {
                        if (words.length == 1) {
                            throw new ConfigException(source, number,
                                    "[host] needs at least one host name, address, CIDR block or wildcard");
                        }
                        patterns = new ArrayList<>();
                        for (int w = 1; w < words.length; w++) {
                            try {
                                patterns.add(HostPattern.parse(words[w]));
                            } catch (IllegalArgumentException e) {
                                throw new ConfigException(source, number, e.getMessage());
                            }
                        }
                        // A host section starts from the defaults as they stand, then says what differs.
                        current = new PolicyBuilder(defaults.build());
                        sectionLine = number;
                    } else {
                        throw new ConfigException(source, number,
                                "unknown section '" + line + "' (expected [defaults] or [host PATTERN...])");
                    }
                    continue;
                }
                int eq = line.indexOf('=');
                if (eq <= 0) {
                    throw new ConfigException(source, number, "expected 'key = value' or a [section], found '" + line + "'");
                }
                apply(source, number, line.substring(0, eq).trim(), line.substring(eq + 1).trim(), current);
            }
            if (patterns != null) {
                hosts.add(new HostSection(patterns, current.build(), sectionLine));
            }
            return new FastRmiConfig(source, scope, plainTtl, spin, waitMode, nativeLibrary, binding, warmUp,
                    offerPorts, defaults.build(), hosts);
        }

        /** One key; {@code policy} null means outside any section, where only global keys belong. */
        void apply(String where, int number, String key, String value, PolicyBuilder policy) throws ConfigException {
            if (value.isEmpty()) {
                throw new ConfigException(where, number, "'" + key + "' has no value");
            }
            if (GLOBAL_KEYS.contains(key)) {
                if (policy != null && number > 0) {
                    throw new ConfigException(where, number,
                            "'" + key + "' is a global key: put it before the first [section]");
                }
                if (key.equals("scope")) {
                    scope = switch (value) {
                        case "rmi" -> Scope.RMI;
                        case "jvm" -> Scope.JVM;
                        default -> throw new ConfigException(where, number, "scope must be rmi or jvm, not '" + value + "'");
                    };
                } else if (key.equals("native-library")) {
                    nativeLibrary = Optional.of(Path.of(value));
                } else if (key.equals("binding")) {
                    if (!value.equals("ffm") && !value.equals("jni")) {
                        throw new ConfigException(where, number, "binding must be ffm or jni, not '" + value + "'");
                    }
                    binding = value;
                } else if (key.equals("warm-up")) {
                    warmUp = onOff(where, number, key, value);
                } else if (key.equals("spin")) {
                    spin = duration(where, number, key, value);
                } else if (key.equals("wait")) {
                    waitMode = switch (value) {
                        case "adaptive" -> WaitMode.ADAPTIVE;
                        case "spin" -> WaitMode.SPIN;
                        case "block" -> WaitMode.BLOCK;
                        default -> throw new ConfigException(where, number,
                                "wait must be adaptive, spin or block, not '" + value + "'");
                    };
                } else if (key.equals("offer-ports")) {
                    offerPorts = ports(where, number, key, value);
                    if (offerPorts.count() == 0) {
                        throw new ConfigException(where, number, "offer-ports needs at least one port");
                    }
                } else {
                    plainTtl = duration(where, number, key, value);
                }
                return;
            }
            if (!HOST_KEYS.contains(key)) {
                throw new ConfigException(where, number, "unknown key '" + key + "' (expected one of: "
                        + String.join(", ", sorted(GLOBAL_KEYS, HOST_KEYS)) + ")");
            }
            if (policy == null) {
                throw new ConfigException(where, number,
                        "'" + key + "' belongs in a [defaults] or [host ...] section");
            }
            switch (key) {
                case "optimize" -> policy.optimize = onOff(where, number, key, value);
                case "optimizations" -> policy.optimizations = optimizations(where, number, value);
                case "jvm-ports" -> policy.jvmPorts = ports(where, number, key, value);
                default -> policy.transports = transports(where, number, value);
            }
        }

        private static boolean onOff(String where, int number, String key, String value) throws ConfigException {
            switch (value) {
                case "on", "true", "yes":
                    return true;
                case "off", "false", "no":
                    return false;
                default:
                    throw new ConfigException(where, number, key + " must be on or off, not '" + value + "'");
            }
        }

        private static Set<Optimization> optimizations(String where, int number, String value) throws ConfigException {
            if (value.equals("all")) {
                return Optimization.all();
            }
            if (value.equals("none")) {
                return Set.of();
            }
            Set<Optimization> chosen = EnumSet.noneOf(Optimization.class);
            for (String item : list(value)) {
                Optional<Optimization> named = Optimization.named(item); // no lambda in premain's parse
                if (named.isEmpty()) {
                    throw new ConfigException(where, number, "unknown optimization '" + item + "' (expected all, none, or "
                            + Optimization.configNames(Optimization.all(), ", ") + ")");
                }
                chosen.add(named.get());
            }
            return chosen;
        }

        private static List<TransportName> transports(String where, int number, String value) throws ConfigException {
            List<TransportName> chosen = new ArrayList<>();
            for (String text : list(value)) {
                TransportName item;
                try {
                    item = TransportName.parse(text);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(where, number, e.getMessage());
                }
                if (!chosen.contains(item)) {
                    chosen.add(item);
                }
            }
            return chosen;
        }

        private static PortRanges ports(String where, int number, String key, String value) throws ConfigException {
            try {
                return PortRanges.parse(value);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(where, number, key + ": " + e.getMessage());
            }
        }

        private static Duration duration(String where, int number, String key, String value) throws ConfigException {
            Matcher m = DURATION.matcher(value);
            if (!m.matches()) {
                throw new ConfigException(where, number, key + " must be a duration such as 50us, 500ms, 30s, 5m or 1h, not '"
                        + value + "'");
            }
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "us" -> Duration.ofNanos(n * 1000);
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofHours(n);
            };
        }

        private static List<String> list(String value) {
            List<String> items = new ArrayList<>();
            for (String item : value.split(",")) {
                if (!item.isBlank()) {
                    items.add(item.trim());
                }
            }
            return items;
        }

        static List<String> sorted(Set<String> a, Set<String> b) {
            List<String> all = new ArrayList<>(a);
            all.addAll(b);
            all.sort(null);
            return all;
        }

        private static String stripComment(String line) {
            int hash = line.indexOf('#');
            return hash < 0 ? line : line.substring(0, hash);
        }
    }
}
