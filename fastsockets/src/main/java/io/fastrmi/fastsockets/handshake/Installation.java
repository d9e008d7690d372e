package io.fastrmi.fastsockets.handshake;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.transport.NativeTransports;
import io.fastrmi.optrmi.JvmFingerprint;
import java.net.InetAddress;
import java.util.List;

/**
 * FastRMI as installed in this JVM: the config and this JVM's fingerprint.
 * The agent installs it ({@link #install}); before that (and in a JVM without the agent) the
 * built-in config answers and there is no factory.
 */
public final class Installation {

    private static final JvmFingerprint FINGERPRINT = JvmFingerprint.current();
    private static volatile FastRmiConfig config;
    /** The config's native transports, opened in the background at RMI's first use. */
    private static volatile List<TransportName> transportsToOpen = List.of();

    private Installation() {
    }

    /** Switches FastRMI sockets on for RMI's default socket factory. */
    public static synchronized void install(FastRmiConfig installed) {
        config = installed;
        transportsToOpen = installed.allTransports();
    }

    public static JvmFingerprint fingerprint() {
        return FINGERPRINT;
    }

    /** The config installed; the built-in one before (a JVM without the agent never asks). */
    public static FastRmiConfig config() {
        FastRmiConfig current = config;
        return current == null ? FastRmiConfig.builtIn() : current;
    }

    /** The policy for a peer at {@code address} (looked up by name too, where the config names hosts). */
    public static HostPolicy policyFor(InetAddress address) {
        FastRmiConfig current = config();
        return current.policyFor(current.usesHostNames() ? address.getHostName() : null, address);
    }

    private static volatile boolean leanFormat;

    /** The agent put the lean format under RMI's streams: its optimizations are offered and accepted from now on. */
    public static void leanFormatInstalled() {
        leanFormat = true;
    }

    /** Whether the lean format is in place in this JVM (see {@link Negotiation}). */
    static boolean leanFormat() {
        return leanFormat;
    }

    /** Whether the agent installed FastRMI: RMI gets FastRMI's socket factory only then. */
    public static boolean installed() {
        return config != null;
    }

    /** Opens the config's native transports in the background, once (see {@link NativeTransports#warmUp}). */
    public static void warmUpTransports() {
        NativeTransports.warmUp(transportsToOpen);
    }
}
