package io.fastrmi.agent.doctor;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.RmiLimits;
import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.handshake.ClientHandshake;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.optrmi.JvmFingerprint;
import io.fastrmi.optrmi.Optimization;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Set;

/**
 * The doctor's look at a server: connects and negotiates as RMI's client side does (the same policy
 * lookup, offer and reading of the answer), then closes without sending RMI anything. No plain
 * endpoint is remembered and no event is recorded.
 */
final class Probe {

    private Probe() {
    }

    /**
     * What a probe found: the server's address and the name its host was matched by, the client's
     * policy for it, the offer made (null when the host is outside and none was made), the server's
     * answer (null when it did not answer as FastRMI), and the outcome.
     */
    record Result(InetAddress address, String matchedName, HostPolicy policy, Handshake.Offer offer,
            Handshake.Answer answer, boolean fast, String reason, TransportName transport, Set<Optimization> optimizations) {
        Result {
            optimizations = Set.copyOf(optimizations);
        }

        /** The server's JVM fingerprint, when it answered the offer; null otherwise. */
        JvmFingerprint serverFingerprint() {
            return answer == null ? null : answer.fingerprint();
        }
    }

    /** {@link #probe(String, int, FastRmiConfig, int)} with RMI's handshake time limit. */
    static Result probe(String host, int port, FastRmiConfig config) throws IOException {
        return probe(host, port, config, RmiLimits.handshakeTimeoutMillis());
    }

    /**
     * Connects to {@code host:port} and negotiates under {@code config}. Failing to connect, a silent
     * server (after {@code timeoutMillis}) or a malformed answer is an {@link IOException}; a host that
     * is outside is still connected to, plainly, to show that it can be reached.
     */
    static Result probe(String host, int port, FastRmiConfig config, int timeoutMillis) throws IOException {
        ClientHandshake.Target target = ClientHandshake.target(config, host);
        InetSocketAddress endpoint = new InetSocketAddress(target.address(), port);
        if (!target.policy().optimize()) {
            try (Socket plain = new Socket()) {
                plain.connect(endpoint, timeoutMillis);
            }
            return new Result(target.address(), target.name(), target.policy(), null, null, false,
                    ClientHandshake.OUTSIDE, TransportName.TCP, Set.of());
        }
        Handshake.Offer offer = ClientHandshake.offer(target.policy(), Installation.fingerprint(), endpoint);
        try (Socket socket = new Socket()) {
            socket.connect(endpoint, timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            ClientHandshake.Outcome outcome = ClientHandshake.exchange(socket, offer);
            Handshake.Answer answer = outcome.answer();
            return answer == null
                    ? new Result(target.address(), target.name(), target.policy(), offer, null, false,
                            outcome.plainReason(), TransportName.TCP, Set.of())
                    : new Result(target.address(), target.name(), target.policy(), offer, answer, answer.fast(),
                            answer.reason(), answer.transport().name(), answer.optimizations());
        }
    }
}
