package io.fastrmi.agent.doctor;

import io.fastrmi.agent.AgentOptions;
import io.fastrmi.agent.NativeLibraryFile;
import io.fastrmi.config.ConfigException;
import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.config.HostPattern;
import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.SlowTransports;
import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.handshake.ClientHandshake;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.fastsockets.handshake.HandshakeException;
import io.fastrmi.fastsockets.nativelib.NativeLibraries;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.transport.NativeTransports;
import io.fastrmi.fastsockets.transport.TcpWaits;
import io.fastrmi.optrmi.JvmFingerprint;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * {@code java -jar fastrmi-agent.jar doctor [--config FILE] [HOST:PORT]}: what FastRMI would do in
 * this JVM and why, as plain text. It prints the JDK and the agent's version; the config as the agent
 * would load it (same sources, same overrides) written back in the file's format; the transports this
 * machine has; and with {@code HOST:PORT} the effective policy for that host and the outcome of a
 * real FastRMI offer to it. Exit code 0 when everything could be checked (whether the answer is fast
 * or plain), 1 when the config is bad or the server cannot be reached or resolved.
 */
public final class Doctor {

    /** The keys that {@code -Dfastrmi.KEY} and {@code FASTRMI_KEY} override, in the order they are applied. */
    static final List<String> OVERRIDABLE_KEYS = FastRmiConfig.keys();
    private final AgentFacts agent;
    private final Properties properties;
    private final Map<String, String> environment;
    private final PrintWriter out;
    private final Report report;

    /** A doctor that prints text. */
    public Doctor(AgentFacts agent, Properties properties, Map<String, String> environment, PrintWriter out,
            PrintWriter err) {
        this(agent, properties, environment, out, err, false);
    }

    /** {@code json}: one JSON object on {@code out} at the end, for scripts ({@code doctor --json}). */
    public Doctor(AgentFacts agent, Properties properties, Map<String, String> environment, PrintWriter out,
            PrintWriter err, boolean json) {
        this.agent = agent;
        this.properties = properties;
        this.environment = environment;
        this.out = out;
        this.report = new Report(out, err, json);
    }

    /** Runs the checks; returns the exit code. */
    public int run(Optional<Path> configFile, Optional<Endpoint> endpoint, int timeoutMillis) {
        // An agent JVM offers the lean format (the agent puts it under RMI at start): so does the
        // doctor's offer, so that what it shows is what a negotiation from this JVM would get.
        io.fastrmi.fastsockets.handshake.Installation.leanFormatInstalled();
        int code = 1;
        try {
            code = check(configFile, endpoint, timeoutMillis);
            return code;
        } finally {
            report.finish(code);
        }
    }

    private int check(Optional<Path> configFile, Optional<Endpoint> endpoint, int timeoutMillis) {
        report.section("doctor", "FastRMI doctor");
        row("FastRMI", agent.version());
        row("JDK", agent.jdk());
        row("JVM fingerprint", JvmFingerprint.current().toString());
        report.blank();

        AgentOptions.ConfigSource source = configFile.isPresent()
                ? new AgentOptions.ConfigSource(configFile, "--config")
                : AgentOptions.NONE.configSource(environment, properties.getProperty("fastrmi.config"));
        report.section("config", null);
        report.line("source", source.toString(), "config: " + source);
        List<String> overrides = overrides();
        report.line("overrides", overrides, "overrides: " + (overrides.isEmpty() ? "none" : String.join(", ", overrides)));
        FastRmiConfig config;
        try {
            config = agent.configLoader().load(source, properties, environment);
        } catch (ConfigException e) {
            return error(e.getMessage(), "with this config the agent switches FastRMI off (\"FastRMI is OFF\"):"
                    + " applications run plain RMI");
        }
        List<String> parsed = ConfigText.lines(config);
        report.line("as parsed", parsed, "as parsed" + (overrides.isEmpty() ? "" : ", with the overrides") + ":\n"
                + String.join("\n", parsed.stream().map(line -> line.isEmpty() ? "" : "  " + line).toList()));
        report.blank();

        report.section("transports", "transports on this machine:");
        nativeTransports(config);
        row("scope = jvm", (Runtime.version().feature() >= 22 ? "possible on this JDK"
                : "needs JDK 22 or newer: here only RMI's sockets can be FastRMI's")
                + (config.scope() == FastRmiConfig.Scope.JVM ? " (the config asks for it)" : " (the config says rmi)"));

        if (endpoint.isEmpty()) {
            return 0;
        }
        Endpoint target = endpoint.get();
        report.blank();
        report.section("policy", "effective policy for " + target.host() + ":");
        ClientHandshake.Target resolved;
        try {
            resolved = ClientHandshake.target(config, target.host());
        } catch (IOException e) {
            return error("cannot resolve host '" + target.host() + "': " + e.getMessage(), null);
        }
        InetAddress address = resolved.address();
        String name = resolved.name();
        HostPolicy policy = resolved.policy();
        row("name", name + (name.equals(target.host()) ? "" : " (by a reverse lookup: the config names hosts)"));
        row("address", address.getHostAddress());
        row("matched", matched(config, name, address));
        row("inside", policy.optimize() ? "yes: FastRMI offers an upgrade to this host"
                : "no, outside: no FastRMI offer, plain RMI");
        Handshake.Offer offer = ClientHandshake.offer(policy, JvmFingerprint.current(), 0, new InetSocketAddress(address, 0));
        row("optimizations", ConfigText.optimizations(policy.optimizations()) + " (offered by this version: "
                + ConfigText.optimizations(offer.optimizations()) + ")");
        List<TransportName> offered = new ArrayList<>();
        for (Handshake.Transport transport : offer.transports()) {
            offered.add(transport.name());
        }
        row("transports", ConfigText.transports(policy.transports()) + " (offered by this version: "
                + ConfigText.transports(offered) + ")");
        report.blank();

        report.section("negotiation", "negotiation with " + target + (policy.optimize()
                ? " (a real FastRMI offer, made as RMI's client side makes it):"
                : " (outside: no offer, only a plain connection to see that it can be reached):"));
        out.flush();
        Probe.Result result;
        try {
            result = Probe.probe(target.host(), target.port(), config, timeoutMillis);
        } catch (ConnectException | NoRouteToHostException e) {
            return error("cannot connect to " + target + ": " + e.getMessage(),
                    "is the server running, and listening on that port?");
        } catch (SocketTimeoutException e) {
            return error("no answer from " + target + " within " + timeoutMillis / 1000.0 + " s: " + e.getMessage(),
                    "a server that is not RMI, or a firewall that drops the connection? (--timeout sets the limit)");
        } catch (HandshakeException e) {
            return error("bad handshake with " + target + ": " + e.getMessage(), null);
        } catch (IOException e) {
            return error("cannot negotiate with " + target + ": " + e, null);
        }
        row("result", result.fast() ? "fast" : "plain");
        row("reason", reason(result));
        row("transport", result.transport().toString());
        row("optimizations", ConfigText.optimizations(result.optimizations()));
        JvmFingerprint server = result.serverFingerprint();
        if (server != null) {
            row("server JVM", server.toString());
            row("this JVM", JvmFingerprint.current().toString());
            if (!server.matches(JvmFingerprint.current())) {
                row("note", "the offer carries the doctor's JVM fingerprint: run the doctor on the application's"
                        + " JDK to see what the application gets");
            }
        }
        return 0;
    }

    /** Why the result is what it is, in the doctor's words where the wire gives none. */
    static String reason(Probe.Result result) {
        if (result.fast()) {
            return "both ends run FastRMI, each lets the other's host in and the JVM fingerprints match";
        }
        if (result.offer() == null) {
            return "the server's host is outside per this config: no FastRMI offer is made, RMI runs plain"
                    + " (the server was reachable)";
        }
        if (result.answer() == null) {
            return result.reason();
        }
        return "the server answered plain: " + result.reason();
    }

    /** Which section of the config names this host (the first one that does), or {@code [defaults]}. */
    static String matched(FastRmiConfig config, String name, InetAddress address) {
        for (FastRmiConfig.HostSection section : config.hosts()) {
            for (HostPattern pattern : section.patterns()) {
                if (pattern.matches(name, address)) {
                    return ConfigText.sectionHeader(section) + " (" + ConfigText.where(section) + "), by pattern "
                            + pattern;
                }
            }
        }
        return "[defaults] (no [host] section names it)";
    }

    /** The overrides the agent would apply, as given: a property wins over the environment. */
    List<String> overrides() {
        List<String> given = new ArrayList<>();
        for (String key : OVERRIDABLE_KEYS) {
            String property = properties.getProperty("fastrmi." + key);
            String variable = "FASTRMI_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
            if (property != null) {
                given.add("-Dfastrmi." + key + "=" + property);
            } else if (environment.get(variable) != null) {
                given.add(variable + "=" + environment.get(variable));
            }
        }
        return given;
    }

    private int error(String message, String hint) {
        return report.error(message, hint);
    }

    /**
     * The native library, then each transport of the config, opened and closed again through the
     * agent's own code ({@link NativeTransports#trial}): what a negotiation here would get.
     */
    private void nativeTransports(FastRmiConfig config) {
        row(TransportName.TCP.toString(), "available (pure Java)");
        NativeTransports.configure(new NativeLibraryFile.Locator(config), Doctor.class.getClassLoader(), config.spin(),
                config.waitMode(), config.binding());
        NativeLibrary library = null;
        try {
            Path file = NativeLibraryFile.locate(config);
            library = NativeLibraries.load(file, Doctor.class.getClassLoader(), config.binding());
            row("native library", library == null ? "unavailable: " + NativeLibraries.unavailableReason()
                    : file + " (libfastrmi " + library.version() + ", libfabric " + library.ofiVersion() + ", UCX "
                            + library.ucxVersion() + ")");
        } catch (IOException | RuntimeException e) {
            row("native library", "unavailable: " + e.getMessage());
        }
        if (library != null) {
            row("binding", NativeLibraries.binding());
        }
        row("tcp reads", TcpWaits.describe());
        for (TransportName transport : config.allTransports()) {
            if (!transport.isNative()) {
                continue;
            }
            String found;
            if (library == null) {
                found = "not usable: no native library";
            } else {
                NativeTransports.Trial trial = NativeTransports.trial(transport);
                found = !trial.opened() ? "not usable: " + trial.problem()
                        : "opens" + (trial.peersPerContext() < 0 ? ""
                                : " (at most " + trial.peersPerContext() + " peers per context; a full one is replaced)");
            }
            Optional<String> slower = SlowTransports.whySlower(transport);
            row(transport.toString(), found + slower.map(why -> "; " + why).orElse(""));
        }
        report.note("  (a connection to an inside host runs on the first transport of its list that both ends have)");
    }

    private void row(String label, String value) {
        report.row(label, value);
    }
}
