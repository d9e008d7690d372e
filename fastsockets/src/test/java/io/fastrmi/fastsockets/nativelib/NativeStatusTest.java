package io.fastrmi.fastsockets.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class NativeStatusTest {

    private static final Path HEADER = Path.of("..", "native", "include", "fastrmi.h");

    @Test
    void theEnumIsTheHeadersEnumFastrmiStatus() throws Exception {
        String header = Files.readString(HEADER);
        Matcher body = Pattern.compile("enum fastrmi_status \\{(.*?)\\};", Pattern.DOTALL).matcher(header);
        assertTrue(body.find(), "no enum fastrmi_status in " + HEADER.toAbsolutePath());
        Map<String, Integer> inHeader = new LinkedHashMap<>();
        Matcher entry = Pattern.compile("(FASTRMI_\\w+)\\s*=\\s*(-?\\d+)").matcher(body.group(1));
        while (entry.find()) {
            inHeader.put(entry.group(1), Integer.parseInt(entry.group(2)));
        }
        Map<String, Integer> inJava = new LinkedHashMap<>();
        for (NativeStatus status : NativeStatus.values()) {
            inJava.put(status.cName(), status.code());
        }
        assertEquals(inHeader, inJava);
    }

    @Test
    void aFailureNamesTheCallAndTheStatus() {
        assertEquals("fastrmi_stream_open failed: FASTRMI_ERR_NOMEM (-5): out of memory",
                NativeStatus.failure("fastrmi_stream_open", -5, "out of memory"));
        assertEquals("fastrmi_ctx_address failed: FASTRMI_ERR_INVALID (-4)", NativeStatus.failure("fastrmi_ctx_address", -4, null));
        assertEquals("FASTRMI_UNKNOWN_STATUS (-42)", NativeStatus.describe(-42));
        assertEquals("FASTRMI_UNKNOWN_STATUS (4294967290)", NativeStatus.describe(4294967290L));
    }
}
