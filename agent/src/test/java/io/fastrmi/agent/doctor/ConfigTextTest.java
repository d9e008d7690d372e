package io.fastrmi.agent.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.config.WaitMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigTextTest {

    @Test
    void theBuiltInDefaults() {
        assertEquals(List.of(
                "scope = rmi",
                "plain-ttl = 5m",
                "spin = 20us", "wait = adaptive", "warm-up = on",
                "offer-ports = 61000-61999",
                "",
                "[defaults]",
                "optimize = off",
                "optimizations = none",
                "transports = tcp",
                "jvm-ports = none",
                "",
                "[host local]    # built in",
                "optimize = on",
                "optimizations = all",
                "transports = ucx:shm, tcp",
                "jvm-ports = none"), ConfigText.lines(FastRmiConfig.builtIn()));
    }

    @Test
    void aFileIsWrittenBackWithItsSectionsLines() throws Exception {
        FastRmiConfig config = FastRmiConfig.parse("cluster.conf", List.of(
                "# the cluster",
                "scope = rmi",
                "plain-ttl = 1500ms",
                "offer-ports = 62000-62099",
                "",
                "[defaults]",
                "transports = tcp",
                "[host node*.cluster 10.1.0.0/16 fd00::/8]   # the nodes",
                "optimize = on",
                "optimizations = bulk-arrays, class-table",
                "transports = ofi:tcp;ofi_rxm, tcp",
                "jvm-ports = 9000-9099, 7000",
                "[host local]",
                "optimize = yes"));
        assertEquals(List.of(
                "scope = rmi",
                "plain-ttl = 1500ms",
                "spin = 20us", "wait = adaptive", "warm-up = on",
                "offer-ports = 62000-62099",
                "",
                "[defaults]",
                "optimize = off",
                "optimizations = none",
                "transports = tcp",
                "jvm-ports = none",
                "",
                "[host node*.cluster 10.1.0.0/16 fd00::/8]    # line 8",
                "optimize = on",
                "optimizations = class-table, bulk-arrays",
                "transports = ofi:tcp;ofi_rxm, tcp",
                "jvm-ports = 9000-9099, 7000",
                "",
                "[host local]    # line 13",
                "optimize = on",
                "optimizations = none",
                "transports = tcp",
                "jvm-ports = none"), ConfigText.lines(config));
    }

    /** What the doctor prints parses back into the same config. */
    @Test
    void theTextParsesBackToTheSameConfig() throws Exception {
        FastRmiConfig config = FastRmiConfig.parse("a.conf", List.of("plain-ttl = 2h", "[defaults]", "optimize = on",
                "optimizations = no-annotations", "[host 192.168.0.0/24 ?ost]", "transports = ucx:rc, tcp"))
                .withOverrides(Map.of("fastrmi.plain-ttl", "45s", "fastrmi.spin", "150us",
                        "fastrmi.wait", "spin", "fastrmi.warm-up", "off"), Map.of());
        List<String> text = new ArrayList<>();
        for (String line : ConfigText.lines(config)) {
            text.add(line.replaceAll("#.*", ""));
        }
        FastRmiConfig again = FastRmiConfig.parse("b.conf", text);
        assertEquals(config.scope(), again.scope());
        assertEquals(config.plainTtl(), again.plainTtl());
        assertEquals(Duration.ofNanos(150_000), again.spin());
        assertEquals(WaitMode.SPIN, again.waitMode());
        assertEquals(false, again.warmUp());
        assertEquals(config.defaults(), again.defaults());
        assertEquals(config.hosts().size(), again.hosts().size());
        for (int i = 0; i < config.hosts().size(); i++) {
            assertEquals(config.hosts().get(i).patterns(), again.hosts().get(i).patterns());
            assertEquals(config.hosts().get(i).policy(), again.hosts().get(i).policy());
        }
    }

    @Test
    void durationsUseTheLargestExactUnit() {
        assertEquals("5m", ConfigText.duration(Duration.ofMinutes(5)));
        assertEquals("2h", ConfigText.duration(Duration.ofHours(2)));
        assertEquals("90s", ConfigText.duration(Duration.ofSeconds(90)));
        assertEquals("1500ms", ConfigText.duration(Duration.ofMillis(1500)));
        assertEquals("0s", ConfigText.duration(Duration.ZERO));
        assertEquals("50us", ConfigText.duration(Duration.ofNanos(50_000)));
    }
}
