package io.fastrmi.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SlowTransportsTest {

    @Test
    void theTcpProvidersAreNamedWithTheAdviceToPutTcpFirst() {
        for (String transport : new String[] {"ofi:tcp;ofi_rxm", "ucx:tcp"}) {
            assertTrue(SlowTransports.whySlower(TransportName.parse(transport)).orElseThrow().contains("list tcp before it"), transport);
        }
    }

    @Test
    void sharedMemoryAndTcpAreNot() {
        for (String transport : new String[] {"tcp", "ucx:shm", "ofi:shm"}) {
            assertTrue(SlowTransports.whySlower(TransportName.parse(transport)).isEmpty(), transport);
        }
    }
}
