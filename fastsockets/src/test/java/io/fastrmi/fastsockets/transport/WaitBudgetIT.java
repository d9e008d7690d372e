package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fastrmi.config.TransportName;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The budgets that TCP reads wait with are the library's idle strategy, reached through FFM. */
class WaitBudgetIT {

    @Test
    void theLibrarysRulesDecide() throws Exception {
        Path library = Path.of(System.getProperty("fastrmi.native.library"));
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(25)).name("wait-budget").jvmArgs("--enable-native-access=ALL-UNNAMED")
                .classpath(Path.of(System.getProperty("fastrmi.fastsockets.jar")))
                .classpath(JvmLauncher.codeSourceOf(TransportName.class))
                .classpath(JvmLauncher.codeSourceOf(WaitBudgetMain.class))
                .main(WaitBudgetMain.class).args(library.toString()).timeLimit(Duration.ofMinutes(1)).start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(1)), () -> jvm.failure("wait-budget").getMessage());
            Map<String, String> checks = jvm.output().stream().filter(l -> l.startsWith("CHECK "))
                    .map(l -> l.split(" ")).collect(Collectors.toMap(f -> f[1], f -> f[2]));
            assertEquals(Map.of("spin-may-spin", "true", "spin-spins", Long.toString(WaitBudgetMain.SPIN),
                    "block-may-spin", "false", "block-spins", "0", "adaptive-first-within-spin", "true",
                    "adaptive-after-two-slow", "0", "spinners-on-1", "0", "spinners-on-2", "1", "spinners-on-8", "4"),
                    checks, () -> String.join("\n", jvm.output()));
        }
    }
}
