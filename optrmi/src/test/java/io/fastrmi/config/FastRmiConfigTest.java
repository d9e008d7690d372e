package io.fastrmi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.optrmi.Optimization;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FastRmiConfigTest {

    private static final List<String> CLUSTER = List.of(
            "# the cluster's FastRMI config",
            "scope = rmi",
            "plain-ttl = 30s   # remember plain endpoints for half a minute",
            "spin = 75us",
            "wait = block",
            "warm-up = off",
            "native-library = /opt/fastrmi/libfastrmi.so",
            "",
            "[defaults]",
            "optimize = off",
            "",
            "[host local 10.1.0.0/16 node?.cluster.example]",
            "optimize = on",
            "optimizations = all",
            "transports = ofi:shm, ucx:shm, ofi:tcp;ofi_rxm, tcp",
            "",
            "[host gateway.cluster.example 2001:db8::/32]",
            "optimize = on",
            "optimizations = class-table, bulk-arrays",
            "transports = ofi:tcp;ofi_rxm, tcp");

    @Test
    void everyTransportSomeHostIsOfferedIsListedOnceInOrder() throws Exception {
        assertEquals(List.of("ofi:shm", "ucx:shm", "ofi:tcp;ofi_rxm", "tcp"),
                names(FastRmiConfig.parse("cluster.conf", CLUSTER).allTransports()));
        assertEquals(List.of("ucx:shm", "tcp"), names(FastRmiConfig.builtIn().allTransports()));
    }

    @Test
    void aClusterConfigIsParsedAndMatchedFirstSectionFirst() throws Exception {
        FastRmiConfig config = FastRmiConfig.parse("cluster.conf", CLUSTER);
        assertEquals(FastRmiConfig.Scope.RMI, config.scope());
        assertEquals(Duration.ofSeconds(30), config.plainTtl());
        assertEquals(Duration.ofNanos(75_000), config.spin());
        assertEquals(WaitMode.BLOCK, config.waitMode());
        assertEquals(WaitMode.ADAPTIVE, FastRmiConfig.builtIn().waitMode());
        assertFalse(config.warmUp());
        assertTrue(FastRmiConfig.builtIn().warmUp());
        assertEquals(java.util.Optional.of(Path.of("/opt/fastrmi/libfastrmi.so")), config.nativeLibrary());
        assertEquals(2, config.hosts().size());
        assertEquals(12, config.hosts().get(0).line());

        HostPolicy inside = config.policyFor("node3.cluster.example", InetAddress.getByName("10.2.0.7"));
        assertTrue(inside.optimize());
        assertEquals(Optimization.all(), inside.optimizations());
        assertEquals(List.of("ofi:shm", "ucx:shm", "ofi:tcp;ofi_rxm", "tcp"), names(inside.transports()));
        assertSame(inside, config.policyFor(null, InetAddress.getByName("10.1.200.3")));
        assertSame(inside, config.policyFor("localhost", InetAddress.getLoopbackAddress()));

        HostPolicy gateway = config.policyFor("GATEWAY.cluster.example", null);
        assertEquals(Set.of(Optimization.CLASS_TABLE, Optimization.BULK_ARRAYS), gateway.optimizations());
        assertSame(gateway, config.policyFor(null, InetAddress.getByName("2001:db8:1::5")));

        HostPolicy outside = config.policyFor("node12.cluster.example", InetAddress.getByName("192.0.2.1"));
        assertFalse(outside.optimize());
        assertEquals(config.defaults(), outside);
    }

    /** The README's example, as make startup reads it: a file on disk, read as the agent reads it. */
    @Test
    void theReadmesExampleConfigIsReadFromItsFile() throws Exception {
        FastRmiConfig config = FastRmiConfig.load(Path.of("..", "scripts", "fastrmi-example.conf"));
        assertEquals(2, config.hosts().size());
        assertEquals(List.of("ucx:shm", "tcp"), names(config.allTransports()));
        assertTrue(config.policyFor("node07.cluster.example", null).optimize());
        assertTrue(config.policyFor(null, InetAddress.getByName("fd00:1::7")).optimize());
        assertFalse(config.policyFor("elsewhere.example", InetAddress.getByName("192.0.2.1")).optimize());
    }

    @Test
    void aFileThatIsNotUtf8IsAClearError(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("latin1.conf"), new byte[] {'#', ' ', (byte) 0xe9, '\n'});
        ConfigException e = assertThrows(ConfigException.class, () -> FastRmiConfig.load(file));
        assertTrue(e.getMessage().contains("cannot read the config file"), e.getMessage());
    }

    @Test
    void builtInDefaultsKeepThisHostInsideAndEveryOtherOutside() throws Exception {
        FastRmiConfig config = FastRmiConfig.builtIn();
        assertTrue(config.policyFor("localhost", InetAddress.getByName("127.0.0.1")).optimize());
        assertTrue(config.policyFor(null, InetAddress.getByName("::1")).optimize());
        assertFalse(config.policyFor("elsewhere", InetAddress.getByName("192.0.2.9")).optimize());
        assertFalse(config.policyFor("elsewhere", null).optimize());
    }

    @Test
    void scopeIsRmiUnlessTheFileSaysJvm() throws Exception {
        assertEquals(FastRmiConfig.Scope.RMI, FastRmiConfig.parse("c.conf", List.of("[defaults]")).scope());
        assertEquals(FastRmiConfig.Scope.JVM, FastRmiConfig.parse("c.conf", List.of("scope = jvm")).scope());
    }

    @Test
    void jvmPortsAreAHostKeyAndOfferPortsAGlobalOne() throws Exception {
        FastRmiConfig config = FastRmiConfig.parse("c.conf", List.of("scope = jvm", "offer-ports = 62000-62009, 62100",
                "[host node*]", "optimize = on", "jvm-ports = 9000-9099, 7000"));
        assertEquals("62000-62009, 62100", config.offerPorts().toString());
        assertEquals(11, config.offerPorts().count());
        assertEquals(62100, config.offerPorts().port(10));
        PortRanges jvmPorts = config.policyFor("node1", null).jvmPorts();
        assertTrue(jvmPorts.contains(9000) && jvmPorts.contains(9099) && jvmPorts.contains(7000));
        assertFalse(jvmPorts.contains(8999) || jvmPorts.contains(9100) || jvmPorts.contains(7001));
        assertEquals(PortRanges.NONE, config.defaults().jvmPorts());
        assertEquals("61000-61999", FastRmiConfig.builtIn().offerPorts().toString());
        assertEquals("c.conf:2: jvm-ports: '10-0': ports go from 1 to 65535, the lower first",
                assertThrows(ConfigException.class, () -> FastRmiConfig.parse("c.conf",
                        List.of("[defaults]", "jvm-ports = 10-0"))).getMessage());
        assertEquals("c.conf:2: jvm-ports: '65536': ports go from 1 to 65535, the lower first",
                assertThrows(ConfigException.class, () -> FastRmiConfig.parse("c.conf",
                        List.of("[defaults]", "jvm-ports = 65536"))).getMessage());
    }

    @Test
    void overridesChangeTheDefaultsPropertiesBeforeEnvironment() throws Exception {
        FastRmiConfig config = FastRmiConfig.parse("cluster.conf", CLUSTER).withOverrides(
                Map.of("fastrmi.transports", "tcp", "fastrmi.scope", "jvm"),
                Map.of("FASTRMI_TRANSPORTS", "ucx:tcp", "FASTRMI_OPTIMIZE", "on", "FASTRMI_PLAIN_TTL", "2m"));
        assertEquals(FastRmiConfig.Scope.JVM, config.scope());
        assertEquals(Duration.ofMinutes(2), config.plainTtl());
        assertTrue(config.defaults().optimize());
        assertEquals(List.of(TransportName.TCP), config.defaults().transports());
        for (FastRmiConfig.HostSection section : config.hosts()) {
            assertTrue(section.policy().optimize(), "the override applies to every section too");
            assertEquals(List.of(TransportName.TCP), section.policy().transports());
        }
        assertEquals(Set.of(Optimization.CLASS_TABLE, Optimization.BULK_ARRAYS), config.hosts().get(1).policy().optimizations(),
                "what is not overridden stays");

        assertEquals("", FastRmiConfig.builtIn().binding(), "no binding named: the JDK's default");
        assertEquals("jni", FastRmiConfig.builtIn().withOverrides(Map.of("fastrmi.binding", "jni"), Map.of()).binding());
        assertEquals("ffm", FastRmiConfig.parse("c.conf", List.of("binding = ffm")).binding());

        ConfigException bad = assertThrows(ConfigException.class,
                () -> FastRmiConfig.builtIn().withOverrides(Map.of("fastrmi.optimize", "maybe"), Map.of()));
        assertEquals("-Dfastrmi.optimize: optimize must be on or off, not 'maybe'", bad.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "wait = sometimes|c.conf:1: wait must be adaptive, spin or block, not 'sometimes'",
        "speed = fast|c.conf:1: unknown key 'speed' (expected one of: binding, jvm-ports, native-library, offer-ports, optimizations, optimize, plain-ttl, scope, spin, transports, wait, warm-up)",
        "warm-up = later|c.conf:1: warm-up must be on or off, not 'later'",
        "binding = panama|c.conf:1: binding must be ffm or jni, not 'panama'",
        "[defaults|c.conf:1: section header '[defaults' has no closing ']'",
        "[cluster]|c.conf:1: unknown section '[cluster]' (expected [defaults] or [host PATTERN...])",
        "[host]|c.conf:1: [host] needs at least one host name, address, CIDR block or wildcard",
        "[host 10.0.0.0/33]|c.conf:1: '10.0.0.0/33': prefix length must be 0 to 32",
        "[host 10.0.0.0/x]|c.conf:1: '10.0.0.0/x': the prefix length after '/' is not a number",
        "[host 300.1.1.1]|c.conf:1: '300.1.1.1': '300.1.1.1' is not an IPv4 or IPv6 address",
        "[host bad_name!]|c.conf:1: 'bad_name!' is not a host name, address, CIDR block or wildcard",
        "optimize = on|c.conf:1: 'optimize' belongs in a [defaults] or [host ...] section",
        "scope = everything|c.conf:1: scope must be rmi or jvm, not 'everything'",
        "plain-ttl = soon|c.conf:1: plain-ttl must be a duration such as 50us, 500ms, 30s, 5m or 1h, not 'soon'",
        "just words|c.conf:1: expected 'key = value' or a [section], found 'just words'",
        "scope =|c.conf:1: 'scope' has no value",
        "offer-ports = 61000-|c.conf:1: offer-ports: '61000-' is not a port or a range of ports such as 9000-9099",
        "offer-ports = -61000|c.conf:1: offer-ports: '-61000' is not a port or a range of ports such as 9000-9099",
        "offer-ports = 1-2-3|c.conf:1: offer-ports: '1-2-3' is not a port or a range of ports such as 9000-9099",
        "offer-ports = 610000|c.conf:1: offer-ports: '610000' is not a port or a range of ports such as 9000-9099",
        "offer-ports = 6x|c.conf:1: offer-ports: '6x' is not a port or a range of ports such as 9000-9099",
        "offer-ports = none|c.conf:1: offer-ports needs at least one port",
        "jvm-ports = 9000|c.conf:1: 'jvm-ports' belongs in a [defaults] or [host ...] section",
    })
    void eachErrorNamesTheFileTheLineAndWhatWasExpected(String line, String message) {
        assertEquals(message, assertThrows(ConfigException.class,
                () -> FastRmiConfig.parse("c.conf", List.of(line))).getMessage());
    }

    @Test
    void errorsInsideSectionsNameTheirLine() {
        assertEquals("c.conf:3: optimize must be on or off, not 'sometimes'", error("[defaults]", "", "optimize = sometimes"));
        assertEquals("c.conf:2: unknown optimization 'zip' (expected all, none, or class-table, no-annotations,"
                + " block-data, bulk-arrays)", error("[host local]", "optimizations = class-table, zip"));
        assertEquals("c.conf:2: unknown transport 'rdma' (expected tcp, ofi:PROVIDER such as ofi:shm or ofi:tcp;ofi_rxm,"
                + " or ucx:TRANSPORT such as ucx:shm)", error("[host local]", "transports = tcp, rdma"));
        assertEquals("c.conf:2: 'scope' is a global key: put it before the first [section]", error("[defaults]", "scope = rmi"));
        assertEquals("c.conf:2: a second [defaults] section", error("[defaults]", "[defaults]"));
    }

    @Test
    void aMissingFileIsAnErrorThatNamesIt(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope.conf");
        assertTrue(assertThrows(ConfigException.class, () -> FastRmiConfig.load(missing)).getMessage()
                .startsWith(missing + ": cannot read the config file"));
        Path file = dir.resolve("ok.conf");
        Files.write(file, CLUSTER);
        assertEquals(file.toString(), FastRmiConfig.load(file).source());
    }

    private static String error(String... lines) {
        return assertThrows(ConfigException.class, () -> FastRmiConfig.parse("c.conf", List.of(lines))).getMessage();
    }

    private static List<String> names(List<TransportName> transports) {
        return transports.stream().map(TransportName::toString).toList();
    }
}
