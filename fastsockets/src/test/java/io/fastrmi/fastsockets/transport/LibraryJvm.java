package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.config.TransportName;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * A JVM that runs a main of these tests with the built native library's path, bound for real: FFM
 * on JDK 25, JNI on 25 and on 17 ({@link #bindings}).
 */
final class LibraryJvm {

    private LibraryJvm() {
    }

    /** The JDKs and bindings each library test runs on: (feature, binding). */
    static Stream<Arguments> bindings() {
        return Stream.of(Arguments.of(25, "ffm"), Arguments.of(25, "jni"), Arguments.of(17, "jni"));
    }

    /**
     * Runs {@code main} on JDK {@code feature} through {@code binding} with the library's path as
     * its argument (and {@code jvmArgs}); its output, once it exited 0 having said it used that binding
     * ({@link LibraryMains#load}).
     */
    static List<String> run(int feature, String binding, String name, Class<?> main, String... jvmArgs)
            throws Exception {
        Path library = Path.of(System.getProperty("fastrmi.native.library"));
        JvmLauncher launcher = JvmLauncher.on(Jdk.of(feature)).name(name).jvmArgs("-Dfastrmi.binding=" + binding);
        if (feature >= 22) {
            launcher.jvmArgs("--enable-native-access=ALL-UNNAMED");
        }
        try (ManagedJvm jvm = launcher.jvmArgs(jvmArgs)
                .classpath(Path.of(System.getProperty("fastrmi.fastsockets.jar")))
                .classpath(JvmLauncher.codeSourceOf(TransportName.class))
                .classpath(JvmLauncher.codeSourceOf(main))
                .main(main).args(library.toString()).timeLimit(Duration.ofMinutes(1)).start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(1)), () -> jvm.failure(name).getMessage());
            List<String> output = jvm.output();
            assertTrue(output.stream().anyMatch(l -> l.startsWith("BINDING " + binding + " (")),
                    () -> String.join("\n", output));
            return output;
        }
    }
}
