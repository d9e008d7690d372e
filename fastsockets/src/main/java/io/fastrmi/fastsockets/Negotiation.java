package io.fastrmi.fastsockets;

import io.fastrmi.fastsockets.config.HostPolicy;
import io.fastrmi.optrmi.JvmFingerprint;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What each side decides, as plain functions: the client's offer from its policy for the server's
 * host, and the server's answer from the offer and its own policy for the client's host.
 */
public final class Negotiation {

    /** The transports this build can run; the native ones join with the transport issue. */
    static final Set<String> AVAILABLE_TRANSPORTS = Set.of("tcp");
    static final Handshake.Transport TCP = new Handshake.Transport("tcp", "");
    /**
     * The lean-format optimizations this build implements: none yet (the lean-format issue adds
     * them). Only these are offered or accepted, so an answer never claims what is not in effect.
     */
    static final Set<String> IMPLEMENTED_OPTIMIZATIONS = Set.of();

    private Negotiation() {
    }

    public static Handshake.Offer offer(HostPolicy policy, JvmFingerprint local) {
        List<Handshake.Transport> transports = policy.transports().stream()
                .filter(AVAILABLE_TRANSPORTS::contains).map(name -> new Handshake.Transport(name, "")).toList();
        Set<String> optimizations = new LinkedHashSet<>(policy.optimizations());
        optimizations.retainAll(IMPLEMENTED_OPTIMIZATIONS);
        return new Handshake.Offer(local, optimizations, transports.isEmpty() ? List.of(TCP) : transports);
    }

    /**
     * Fast only when the server lets the client's host in and both JVMs share a fingerprint;
     * otherwise plain, with the reason. Either way RMI then runs on the connection.
     */
    public static Handshake.Answer answer(Handshake.Offer offer, HostPolicy policyForClient, JvmFingerprint local) {
        Handshake.Transport transport = chooseTransport(offer, policyForClient);
        if (!policyForClient.optimize()) {
            return plain("client host is outside per the server's config", local, transport);
        }
        String difference = local.differenceFrom(offer.fingerprint());
        if (!difference.isEmpty()) {
            return plain("JVM fingerprint mismatch: server " + difference.replace(" vs ", " vs client "), local, transport);
        }
        Set<String> accepted = new LinkedHashSet<>(offer.optimizations());
        accepted.retainAll(policyForClient.optimizations());
        accepted.retainAll(IMPLEMENTED_OPTIMIZATIONS);
        return new Handshake.Answer(true, "", local, accepted, transport);
    }

    private static Handshake.Answer plain(String reason, JvmFingerprint local, Handshake.Transport transport) {
        return new Handshake.Answer(false, reason, local, Set.of(), transport);
    }

    /** The server's most preferred transport that the client offered; the TCP socket itself otherwise. */
    private static Handshake.Transport chooseTransport(Handshake.Offer offer, HostPolicy policy) {
        for (String preferred : policy.transports()) {
            for (Handshake.Transport offered : offer.transports()) {
                if (offered.name().equals(preferred) && AVAILABLE_TRANSPORTS.contains(preferred)) {
                    return offered;
                }
            }
        }
        return TCP;
    }
}
