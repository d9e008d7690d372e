package io.fastrmi.fastsockets.handshake;

import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.TransportName;
import io.fastrmi.optrmi.JvmFingerprint;
import io.fastrmi.optrmi.Optimization;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What each side decides, as plain functions: the client's offer from its policy for the server's
 * host, and the server's answer from the offer and its own policy for the client's host.
 */
public final class Negotiation {

    static final Handshake.Transport TCP = new Handshake.Transport(TransportName.TCP, "");
    /**
     * The lean-format optimizations in effect in this JVM: none until the agent has put the lean
     * format under RMI's streams ({@link Installation#leanFormatInstalled}). Only these are offered or
     * accepted, so an answer never claims what is not in effect.
     */
    static Set<Optimization> implementedOptimizations() {
        return Installation.leanFormat() ? Optimization.all() : Set.of();
    }

    private Negotiation() {
    }

    // Classes, not method references: each costs the JVM a class spun at its first use (StartupIT).
    /** {@link #answer}, as a server's decision for RMI. */
    public static final Negotiator.Decision FOR_RMI = new Negotiator.Decision() {
        @Override
        public Handshake.Answer decide(Handshake.Offer offer, HostPolicy policy, JvmFingerprint local,
                Predicate<Handshake.Transport> usable) {
            return answer(offer, policy, local, usable);
        }
    };
    /** {@link #answerForBytes}, as a server's decision for a socket outside RMI. */
    public static final Negotiator.Decision FOR_BYTES = new Negotiator.Decision() {
        @Override
        public Handshake.Answer decide(Handshake.Offer offer, HostPolicy policy, JvmFingerprint local,
                Predicate<Handshake.Transport> usable) {
            return answerForBytes(offer, policy, local, usable);
        }
    };

    /** An offer of the TCP socket only (no native transport looked up). */
    public static Handshake.Offer offer(HostPolicy policy, JvmFingerprint local) {
        return offer(policy, local, name -> null);
    }

    /**
     * The offer for a server under {@code policy}: its transports in order, each native one that
     * {@code endpoints} can give an address for (null: not available here), and the TCP socket
     * itself last in any case, since it always works.
     */
    public static Handshake.Offer offer(HostPolicy policy, JvmFingerprint local, Function<TransportName, String> endpoints) {
        List<Handshake.Transport> transports = new ArrayList<>();
        for (TransportName name : policy.transports()) {
            if (name.isNative()) {
                String endpoint = endpoints.apply(name);
                if (endpoint != null) {
                    transports.add(new Handshake.Transport(name, endpoint));
                }
            }
        }
        transports.add(TCP);
        Set<Optimization> optimizations = EnumSet.noneOf(Optimization.class);
        optimizations.addAll(policy.optimizations());
        optimizations.retainAll(implementedOptimizations());
        return new Handshake.Offer(local, optimizations, transports);
    }

    /**
     * Fast only when the server lets the client's host in and both JVMs share a fingerprint;
     * otherwise plain, with the reason. Either way RMI then runs on the connection.
     */
    public static Handshake.Answer answer(Handshake.Offer offer, HostPolicy policyForClient, JvmFingerprint local) {
        return answer(offer, policyForClient, local, offered -> false);
    }

    /**
     * As above; {@code usable} says which of the offered native transports (with the client's
     * address) this server can open a stream of to the client.
     */
    public static Handshake.Answer answer(Handshake.Offer offer, HostPolicy policyForClient, JvmFingerprint local,
            Predicate<Handshake.Transport> usable) {
        Handshake.Transport transport = TCP;
        if (!policyForClient.optimize()) {
            return plain("client host is outside per the server's config", local, transport);
        }
        String difference = local.differenceFrom(offer.fingerprint());
        if (!difference.isEmpty()) {
            return plain("JVM fingerprint mismatch: server " + difference.replace(" vs ", " vs client "), local, transport);
        }
        Set<Optimization> accepted = EnumSet.noneOf(Optimization.class);
        accepted.addAll(offer.optimizations());
        accepted.retainAll(policyForClient.optimizations());
        accepted.retainAll(implementedOptimizations());
        transport = chooseTransport(offer, policyForClient, usable);
        return new Handshake.Answer(true, "", local, accepted, transport);
    }

    /**
     * The answer for a socket outside RMI (scope = jvm): its bytes are the application's, so the
     * JVMs' fingerprints need not match and no lean-format optimization applies; only the host
     * policy and the transports count.
     */
    public static Handshake.Answer answerForBytes(Handshake.Offer offer, HostPolicy policyForClient, JvmFingerprint local,
            Predicate<Handshake.Transport> usable) {
        if (!policyForClient.optimize()) {
            return plain("client host is outside per the server's config", local, TCP);
        }
        return new Handshake.Answer(true, "", local, Set.of(), chooseTransport(offer, policyForClient, usable));
    }

    private static Handshake.Answer plain(String reason, JvmFingerprint local, Handshake.Transport transport) {
        return new Handshake.Answer(false, reason, local, Set.of(), transport);
    }

    /**
     * The server's most preferred transport that the client offered and this server can use to
     * reach it; the TCP socket itself otherwise. Its address is the server's to fill in.
     */
    private static Handshake.Transport chooseTransport(Handshake.Offer offer, HostPolicy policy,
            Predicate<Handshake.Transport> usable) {
        for (TransportName preferred : policy.transports()) {
            for (Handshake.Transport offered : offer.transports()) {
                if (offered.name().equals(preferred) && (!preferred.isNative() || usable.test(offered))) {
                    return new Handshake.Transport(preferred, "");
                }
            }
        }
        return TCP;
    }
}
