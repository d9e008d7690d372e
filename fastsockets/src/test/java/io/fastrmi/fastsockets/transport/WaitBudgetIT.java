package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The budgets that TCP reads wait with are the library's idle strategy, reached through each binding. */
class WaitBudgetIT {

    @ParameterizedTest(name = "JDK {0} through {1}")
    @MethodSource("io.fastrmi.fastsockets.transport.LibraryJvm#bindings")
    void theLibrarysRulesDecide(int feature, String binding) throws Exception {
        List<String> output = LibraryJvm.run(feature, binding, "wait-budget", WaitBudgetMain.class);
        Map<String, String> checks = output.stream().filter(l -> l.startsWith("CHECK "))
                .map(l -> l.split(" ")).collect(Collectors.toMap(f -> f[1], f -> f[2]));
        assertEquals(Map.of("spin-may-spin", "true", "spin-spins", Long.toString(WaitBudgetMain.SPIN),
                "block-may-spin", "false", "block-spins", "0", "adaptive-first-within-spin", "true",
                "adaptive-after-two-slow", "0", "spinners-on-1", "0", "spinners-on-2", "1", "spinners-on-8", "4"),
                checks, () -> String.join("\n", output));
    }
}
