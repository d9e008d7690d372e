package io.fastrmi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HostPatternTest {

    @ParameterizedTest(name = "{0} ~ {1} {2}: {3}")
    @CsvSource({
        "10.1.0.0/16,      ,                 10.1.255.1,  true",
        "10.1.0.0/16,      ,                 10.2.0.1,    false",
        "10.1.0.0/15,      ,                 10.0.0.1,    true",
        "10.1.2.3,         ,                 10.1.2.3,    true",
        "10.1.2.3,         ,                 10.1.2.4,    false",
        "0.0.0.0/0,        ,                 192.0.2.1,   true",
        "0.0.0.0/0,        ,                 ::1,         false",
        "fd00::/8,         ,                 fd12::1,     true",
        "fd00::/8,         ,                 fe80::1,     false",
        "2001:db8::1,      ,                 2001:db8::1, true",
        "node?.cluster,    node7.cluster,    ,            true",
        "node?.cluster,    node17.cluster,   ,            false",
        "*.cluster,        a.cluster,        ,            true",
        "*.cluster,        a.b.cluster,      ,            false",
        "Head.Example,     head.example,     ,            true",
        "head.example,     ,                 10.0.0.1,    false",
        "*,                anything,         ,            true",
        "local,            ,                 127.0.0.1,   true",
        "local,            ,                 192.0.2.77,  false",
    })
    void matches(String pattern, String name, String address, boolean expected) throws Exception {
        InetAddress inet = address == null ? null : InetAddress.getByName(address);
        assertEquals(expected, HostPattern.parse(pattern).matches(name, inet));
    }

    @ParameterizedTest
    @CsvSource({"a..b", "-a", "a b", "10.0.0.0/-1", "::g", "1.2.3"})
    void malformedPatternsAreRejected(String pattern) {
        boolean rejected;
        try {
            HostPattern.parse(pattern);
            rejected = false;
        } catch (IllegalArgumentException e) {
            rejected = true;
            assertTrue(e.getMessage().contains(pattern), e.getMessage());
        }
        assertTrue(rejected, pattern);
        assertFalse(pattern.isEmpty());
    }
}
