package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.lean.RmiLeanStreams;
import io.fastrmi.agent.nativeit.LeanStreamsMain;
import io.fastrmi.optrmi.lean.Corpus;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The lean streams RMI itself gets on a lean connection (not the test pair optrmi's unit tests
 * use) read back every shape of the corpus as the JDK does, on a first and a repeated call, and a
 * JEP 290 filter set on them rejects as on the JDK's stream: in a JVM under the agent, on JDK 25 and 17.
 */
class LeanStreamsIT {

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {25, 17})
    void theStreamsRmiGetsReadBackWhatTheJdkReadsBack(int feature) throws Exception {
        Path config = ItSupport.directory("lean-streams-" + feature).resolve("fastrmi.conf");
        Files.write(config, List.of("[host local]", "optimize = on", "optimizations = all"));
        JvmLauncher jvm = ItSupport.underAgent(JvmLauncher.on(Jdk.of(feature)).name("lean-streams"), config)
                .jvmArgs(RmiLeanStreams.JVM_ARGS).classpathOf(LeanStreamsMain.class).classpathOf(Corpus.class)
                .main(LeanStreamsMain.class);
        try (ManagedJvm run = jvm.start()) {
            assertEquals(0, run.awaitExit(Duration.ofMinutes(2)), () -> run.failure("exit code").getMessage());
            List<String> output = run.output();
            assertTrue(output.contains("SHAPES " + Corpus.shapes().size()), () -> String.join("\n", output));
            assertEquals(List.of(), output.stream().filter(l -> l.startsWith("DIFFERS ")).toList());
            String filter = output.stream().filter(l -> l.startsWith("FILTER ")).findFirst().orElseThrow();
            assertTrue(filter.startsWith("FILTER rejected as the JDK: InvalidClassException: filter status: REJECTED"), filter);
        }
    }
}
