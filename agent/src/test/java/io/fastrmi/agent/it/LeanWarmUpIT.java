package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.StartupMain;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A JVM's first lean connection runs the lean codec over memory on a thread of its own, so that
 * the JIT compiles the codec before the calls need it: after one call (and the registry's few) the
 * JVM has compiled dozens of the codec's methods, told by the JIT's log
 * ({@code -Xlog:jit+compilation}, in a file: on stdout its lines interleave with the program's)
 * once the JIT has settled; with {@code warm-up = off} none, as a few messages leave every method
 * interpreted. Counts of compiled methods, not timings (the calls' gain is measured by the bench,
 * docs/benchmarks.md).
 */
class LeanWarmUpIT {

    /** A method of the lean codec as the JIT's log names it. */
    private static final Pattern CODEC_METHOD = Pattern.compile("\\b(io\\.fastrmi\\.optrmi\\.lean\\.[\\w$]+::\\w+)\\b");
    /** Fewer than the warm-up gives (30-100 seen here), more than a few messages could. */
    private static final int WARMED = 10;

    @ParameterizedTest(name = "JDK {0}, warm-up {1}")
    @CsvSource({"25, on", "25, off", "17, on"})
    void theFirstLeanConnectionHasTheJitCompileTheCodec(int feature, String warmUp) throws Exception {
        Path dir = ItSupport.directory("lean-warm-up-" + feature + "-" + warmUp);
        Path jitLog = dir.resolve("jit.log");
        List<String> output;
        try (ManagedJvm jvm = ItSupport.underAgent(JvmLauncher.on(Jdk.of(feature)).name("warm-up-" + warmUp),
                ItSupport.transportConfig(dir, "tcp"))
                .jvmArgs("-Djava.io.tmpdir=" + dir, "-Dfastrmi.warm-up=" + warmUp,
                        "-Xlog:jit+compilation=debug:file=" + jitLog)
                .classpathOf(StartupMain.class).main(StartupMain.class).args("call-and-settle").start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(3)), () -> jvm.failure("exit code").getMessage());
            output = jvm.output();
        }
        assertTrue(output.contains("ANSWER 42"), output::toString);
        assertTrue(output.stream().noneMatch(line -> line.contains("warm-up stopped")), output::toString);
        Set<String> compiled = new TreeSet<>();
        for (String line : Files.readAllLines(jitLog)) {
            Matcher method = CODEC_METHOD.matcher(line);
            if (method.find()) {
                compiled.add(method.group(1));
            }
        }
        if (warmUp.equals("on")) {
            assertTrue(compiled.size() >= WARMED, () -> "the warm-up left the codec interpreted: " + compiled);
        } else {
            assertTrue(compiled.size() < WARMED, () -> "compiled without a warm-up: " + compiled);
        }
    }
}
