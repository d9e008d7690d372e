package io.fastrmi.fastsockets.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.TransportName;
import io.fastrmi.optrmi.JvmFingerprint;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NegotiationTest {

    private static final JvmFingerprint JDK25 = new JvmFingerprint("25", "OpenJDK 64-Bit Server VM", "25.0.3+9-LTS",
            ByteOrder.LITTLE_ENDIAN);

    @Test
    void sameJvmAndAnInsideClientIsFast() {
        Handshake.Offer offer = Negotiation.offer(HostPolicy.INSIDE_LOCAL, JDK25);
        assertEquals(List.of(new Handshake.Transport(TransportName.TCP, "")), offer.transports(), "only the transports built");
        assertEquals(Set.of(), offer.optimizations(), "only the optimizations built");
        Handshake.Answer answer = Negotiation.answer(offer, HostPolicy.INSIDE_LOCAL, JDK25);
        assertTrue(answer.fast());
        assertEquals("", answer.reason());
        assertEquals("tcp", answer.transport().name().toString());
        assertEquals(JDK25, answer.fingerprint());
    }

    @Test
    void anOutsideClientIsPlain() {
        Handshake.Answer answer = Negotiation.answer(Negotiation.offer(HostPolicy.INSIDE_LOCAL, JDK25),
                HostPolicy.OUTSIDE, JDK25);
        assertFalse(answer.fast());
        assertEquals("client host is outside per the server's config", answer.reason());
    }

    @Test
    void anotherJvmIsPlainAndTheReasonSaysWhich() {
        Handshake.Offer offer = Negotiation.offer(HostPolicy.INSIDE_LOCAL, HandshakeTest.JDK17);
        Handshake.Answer answer = Negotiation.answer(offer, HostPolicy.INSIDE_LOCAL, JDK25);
        assertFalse(answer.fast());
        assertEquals("JVM fingerprint mismatch: server Java 25 vs client 17", answer.reason());
    }

    /** A server picks a shared-memory transport only for a client that sees the same shared memory. */
    @Test
    void sharedMemoryIsChosenOnlyForAClientOnThisHost() {
        HostPolicy policy = new HostPolicy(true, Set.of(), List.of(TransportName.parse("ucx:shm"), TransportName.parse("ofi:tcp;ofi_rxm"), TransportName.TCP));
        String here = HostIdentity.current();
        Handshake.Answer sameHost = Negotiation.answer(offer(here), policy, JDK25, NegotiationTest::reachable);
        assertEquals("ucx:shm", sameHost.transport().name().toString());
        Handshake.Answer otherHost = Negotiation.answer(offer("another-boot-id.21.1"), policy, JDK25,
                NegotiationTest::reachable);
        assertEquals("ofi:tcp;ofi_rxm", otherHost.transport().name().toString(), "the next transport both have");
    }

    @Test
    void endpointsCarryHostAddressAndStreamAndMalformedOnesAreNamed() throws Exception {
        PeerEndpoints.PeerEndpoint peer = PeerEndpoints.parseEndpoint("h1.2.3/0aff/42");
        assertEquals("h1.2.3", peer.host());
        assertEquals(List.of((byte) 0x0a, (byte) 0xff), List.of(peer.address()[0], peer.address()[1]));
        assertEquals(42, peer.streamId());
        for (String bad : List.of("0aff/42", "h//42", "h/0aff/x", "h/0af/42", "h/0aff/42/7")) {
            HandshakeException e = assertThrows(HandshakeException.class,
                    () -> PeerEndpoints.parseEndpoint(bad));
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
    }

    private static Handshake.Offer offer(String clientHost) {
        return new Handshake.Offer(JDK25, Set.of(), List.of(new Handshake.Transport(TransportName.parse("ucx:shm"), clientHost + "/00/1"),
                new Handshake.Transport(TransportName.parse("ofi:tcp;ofi_rxm"), clientHost + "/00/1"), Negotiation.TCP));
    }

    /** Reachability as the server decides it, for transports that all open here. */
    private static boolean reachable(Handshake.Transport offered) {
        try {
            return PeerEndpoints.parseEndpoint(offered.address()).reachableOver(offered.name());
        } catch (HandshakeException e) {
            throw new AssertionError(e);
        }
    }
}
