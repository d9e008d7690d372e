package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fastrmi.fastsockets.nativelib.NativeStatus;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Java names of the native statuses are the library's own (fastrmi_strstatus), through each binding. */
class NativeStatusIT {

    @ParameterizedTest(name = "JDK {0} through {1}")
    @MethodSource("io.fastrmi.fastsockets.transport.LibraryJvm#bindings")
    void everyStatusHasTheLibrarysName(int feature, String binding) throws Exception {
        List<String> output = LibraryJvm.run(feature, binding, "status", NativeStatusMain.class);
        List<String> lines = output.stream().filter(l -> l.startsWith("STATUS ")).collect(Collectors.toList());
        assertEquals(NativeStatus.values().length + NativeStatusMain.NOT_STATUSES.length, lines.size(),
                () -> String.join("\n", output));
        for (String line : lines) {
            String[] fields = line.split(" ");
            assertEquals(fields[2], fields[3], () -> "code " + fields[1] + ": " + line);
        }
    }
}
