package io.fastrmi.fastsockets;

import io.fastrmi.fastsockets.config.FastRmiConfig;
import io.fastrmi.fastsockets.config.HostPolicy;
import io.fastrmi.fastsockets.config.TransportName;
import io.fastrmi.optrmi.JvmFingerprint;
import java.net.InetAddress;
import java.util.List;

/**
 * FastRMI as installed in this JVM: the config, this JVM's fingerprint and RMI's socket factory.
 * The agent installs it ({@link #install}); before that (and in a JVM without the agent) the
 * built-in config answers and there is no factory.
 */
public final class Installation {

    private static final JvmFingerprint FINGERPRINT = JvmFingerprint.current();
    private static volatile FastRmiConfig config;
    private static volatile FastRmiSocketFactory factory;
    /** The config's native transports, opened in the background at RMI's first use. */
    private static volatile List<TransportName> transportsToOpen = List.of();

    private Installation() {
    }

    /** Switches FastRMI sockets on for RMI's default socket factory. */
    public static synchronized void install(FastRmiConfig installed) {
        config = installed;
        transportsToOpen = installed.allTransports();
        factory = new FastRmiSocketFactory(installed, FINGERPRINT);
    }

    public static JvmFingerprint fingerprint() {
        return FINGERPRINT;
    }

    /** The config installed; the built-in one before (a JVM without the agent never asks). */
    static FastRmiConfig config() {
        FastRmiConfig current = config;
        return current == null ? FastRmiConfig.builtIn() : current;
    }

    /** The policy for a peer at {@code address} (looked up by name too, where the config names hosts). */
    static HostPolicy policyFor(InetAddress address) {
        FastRmiConfig current = config();
        return current.policyFor(current.usesHostNames() ? address.getHostName() : null, address);
    }

    /** RMI's socket factory of FastRMI, or null before {@link #install}. */
    static FastRmiSocketFactory factory() {
        return factory;
    }

    /** Opens the config's native transports in the background, once (see {@link NativeTransports#warmUp}). */
    static void warmUpTransports() {
        NativeTransports.warmUp(transportsToOpen);
    }
}
