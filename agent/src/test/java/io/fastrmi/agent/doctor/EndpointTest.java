package io.fastrmi.agent.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class EndpointTest {

    @Test
    void hostAndPort() {
        assertEquals(new Endpoint("node1.cluster", 1099), Endpoint.parse("node1.cluster:1099"));
        assertEquals(new Endpoint("10.0.0.1", 65535), Endpoint.parse("10.0.0.1:65535"));
        assertEquals(new Endpoint("::1", 1099), Endpoint.parse("[::1]:1099"));
        assertEquals("[::1]:1099", Endpoint.parse("[::1]:1099").toString());
        assertEquals("localhost:1", Endpoint.parse("localhost:1").toString());
    }

    @Test
    void whatIsNotHostAndPortIsSaid() {
        assertEquals("'localhost' is not HOST:PORT (an IPv6 address as [ADDRESS]:PORT)",
                assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("localhost")).getMessage());
        assertEquals("'::1:1099' is not HOST:PORT (an IPv6 address as [ADDRESS]:PORT)",
                assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("::1:1099")).getMessage());
        assertEquals("'host:rmi': port 'rmi' is not a number",
                assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("host:rmi")).getMessage());
        assertEquals("'host:0': port must be 1 to 65535",
                assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("host:0")).getMessage());
        assertEquals("':1099' is not HOST:PORT (an IPv6 address as [ADDRESS]:PORT)",
                assertThrows(IllegalArgumentException.class, () -> Endpoint.parse(":1099")).getMessage());
        assertEquals("'[::1]' is not HOST:PORT (an IPv6 address as [ADDRESS]:PORT)",
                assertThrows(IllegalArgumentException.class, () -> Endpoint.parse("[::1]")).getMessage());
    }
}
