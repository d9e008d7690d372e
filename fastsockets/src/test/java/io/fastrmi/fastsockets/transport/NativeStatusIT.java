package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fastrmi.fastsockets.nativelib.NativeStatus;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The Java names of the native statuses are the library's own (fastrmi_strstatus), through FFM. */
class NativeStatusIT {

    @Test
    void everyStatusHasTheLibrarysName() throws Exception {
        List<String> output = LibraryJvm.run("status", NativeStatusMain.class);
        List<String> lines = output.stream().filter(l -> l.startsWith("STATUS ")).collect(Collectors.toList());
        assertEquals(NativeStatus.values().length + NativeStatusMain.NOT_STATUSES.length, lines.size(),
                () -> String.join("\n", output));
        for (String line : lines) {
            String[] fields = line.split(" ");
            assertEquals(fields[2], fields[3], () -> "code " + fields[1] + ": " + line);
        }
    }
}
