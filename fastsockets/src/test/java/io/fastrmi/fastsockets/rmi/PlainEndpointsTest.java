package io.fastrmi.fastsockets.rmi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PlainEndpointsTest {

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
