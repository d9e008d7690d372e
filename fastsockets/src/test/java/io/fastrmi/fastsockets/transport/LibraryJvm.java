package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fastrmi.config.TransportName;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** A JDK 25 JVM that runs a main of these tests with the built native library's path: the FFM binding, for real. */
final class LibraryJvm {

    private LibraryJvm() {
    }

    /** Runs {@code main} with the library's path as its argument (and {@code jvmArgs}); its output, once it exited 0. */
    static List<String> run(String name, Class<?> main, String... jvmArgs) throws Exception {
        Path library = Path.of(System.getProperty("fastrmi.native.library"));
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(25)).name(name).jvmArgs("--enable-native-access=ALL-UNNAMED")
                .jvmArgs(jvmArgs)
                .classpath(Path.of(System.getProperty("fastrmi.fastsockets.jar")))
                .classpath(JvmLauncher.codeSourceOf(TransportName.class))
                .classpath(JvmLauncher.codeSourceOf(main))
                .main(main).args(library.toString()).timeLimit(Duration.ofMinutes(1)).start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(1)), () -> jvm.failure(name).getMessage());
            return jvm.output();
        }
    }
}
