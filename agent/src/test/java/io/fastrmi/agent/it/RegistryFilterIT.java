package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.RegistryFilterMain;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * OpenJDK's RegistryFilterTest case: the registry's filter rejects a bind in the middle of a 2 MB
 * argument and stops reading. Stock RMI's bind fails at once: with the registry's answer when TCP's
 * buffers took the whole argument (2 MB), with a reset when not (16 MB). Under the agent, on each
 * native transport, it fails with the same exceptions, and does not wait for credit that never comes.
 * Which of the two stock gives at 2 MB depends on timing (a busy machine's TCP buffers took less
 * once, and stock got the reset): where the agent's differs from stock's first, stock runs again,
 * and the agent's must be one that stock gave.
 */
class RegistryFilterIT {

    private static final Pattern OUTCOME = Pattern.compile("^(REJECTED (\\S+(?: / \\S+)*) after (\\d+) ms|BOUND)$");
    private static final String FILTER = "-Dsun.rmi.registry.registryFilter=maxarray=10";
    private static final int STOCK_RUNS = 3;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx:shm", "ofi:shm", "ucx:tcp", "ofi:tcp;ofi_rxm"})
    void aBindTheRegistryRejectsFailsAsInStockRmi(String transport) throws Exception {
        Path dir = ItSupport.directory("registry-filter-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        for (int size : new int[] {100, 2 << 20, 16 << 20}) {
            Path jfr = dir.resolve("agent-" + size + ".jfr");
            Set<String> stock = new LinkedHashSet<>();
            stock.add(outcome(JvmLauncher.on(Jdk.of(25)).name("stock-" + size), size));
            String agent = outcome(JvmLauncher.on(Jdk.of(25)).name("agent-" + size)
                    .agent(ItSupport.agentJar(), "config=" + config).jfr(jfr), size);
            for (int run = 2; run <= STOCK_RUNS && !stock.contains(agent); run++) {
                stock.add(outcome(JvmLauncher.on(Jdk.of(25)).name("stock-" + size + "-" + run), size));
            }
            System.out.println(transport + ", " + size + " bytes: stock " + stock + "; agent " + agent);
            assertTrue(stock.contains(agent), "bind of " + size + " bytes: agent " + agent + ", stock " + stock);
            List<RecordedEvent> handshakes = ItSupport.negotiations(jfr);
            assertTrue(handshakes.stream().anyMatch(e -> "fast".equals(e.getString("result"))
                    && transport.equals(e.getString("transport"))), () -> "no fast handshake on " + transport + ": " + handshakes);
        }
    }

    /** The exceptions the bind ended with (the time left out), or BOUND. */
    private static String outcome(JvmLauncher jvm, int size) {
        try (ManagedJvm run = jvm.jvmArgs("--enable-native-access=ALL-UNNAMED", FILTER)
                .classpathOf(RegistryFilterMain.class).main(RegistryFilterMain.class).args(String.valueOf(size))
                .start()) {
            // A hang is what this test is about: a minute is "never" for a 2 MB bind.
            Matcher line = run.awaitLine(OUTCOME, Duration.ofSeconds(60));
            run.awaitExit(Duration.ofSeconds(30)); // the recording is written at exit
            System.out.println(run.name() + ": " + line.group(0));
            return line.group(2) != null ? line.group(2) : line.group(1);
        }
    }
}
