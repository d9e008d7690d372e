package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The Java names of the native statuses are the library's own (fastrmi_strstatus), through FFM. */
class NativeStatusIT {

    @Test
    void everyStatusHasTheLibrarysName() throws Exception {
        Path library = Path.of(System.getProperty("fastrmi.native.library"));
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(25)).name("status").jvmArgs("--enable-native-access=ALL-UNNAMED")
                .classpath(Path.of(System.getProperty("fastrmi.fastsockets.jar")))
                .classpath(JvmLauncher.codeSourceOf(TransportName.class))
                .classpath(JvmLauncher.codeSourceOf(NativeStatusMain.class))
                .main(NativeStatusMain.class).args(library.toString()).timeLimit(Duration.ofMinutes(1)).start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(1)), () -> jvm.failure("status").getMessage());
            List<String> lines = jvm.output().stream().filter(l -> l.startsWith("STATUS ")).collect(Collectors.toList());
            assertEquals(NativeStatus.values().length + NativeStatusMain.NOT_STATUSES.length, lines.size(),
                    () -> String.join("\n", jvm.output()));
            for (String line : lines) {
                String[] fields = line.split(" ");
                assertEquals(fields[2], fields[3], () -> "code " + fields[1] + ": " + line);
            }
        }
    }
}
