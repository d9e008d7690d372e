package io.fastrmi.fastsockets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.fastsockets.config.HostPolicy;
import io.fastrmi.optrmi.JvmFingerprint;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class NegotiationTest {

    private static final JvmFingerprint JDK25 = new JvmFingerprint("25", "OpenJDK 64-Bit Server VM", "25.0.3+9-LTS",
            ByteOrder.LITTLE_ENDIAN);

    @Test
    void sameJvmAndAnInsideClientIsFast() {
        Handshake.Offer offer = Negotiation.offer(HostPolicy.INSIDE_LOCAL, JDK25);
        assertEquals(List.of(new Handshake.Transport("tcp", "")), offer.transports(), "only the transports built");
        assertEquals(Set.of(), offer.optimizations(), "only the optimizations built");
        Handshake.Answer answer = Negotiation.answer(offer, HostPolicy.INSIDE_LOCAL, JDK25);
        assertTrue(answer.fast());
        assertEquals("", answer.reason());
        assertEquals("tcp", answer.transport().name());
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

    @Test
    void plainEndpointsAreForgottenAfterTheirTime() {
        AtomicLong now = new AtomicLong(1_000);
        PlainEndpoints endpoints = new PlainEndpoints(Duration.ofNanos(500), now::get);
        assertFalse(endpoints.isPlain("h", 1));
        endpoints.remember("h", 1);
        assertTrue(endpoints.isPlain("h", 1));
        assertFalse(endpoints.isPlain("h", 2));
        now.addAndGet(499);
        assertTrue(endpoints.isPlain("h", 1));
        now.addAndGet(1);
        assertFalse(endpoints.isPlain("h", 1));
    }
}
