package io.fastrmi.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class WaitModeTest {

    private static final Path HEADER = Path.of("..", "native", "include", "fastrmi.h");

    @Test
    void theCodesAreTheHeadersEnumFastrmiWaitMode() throws Exception {
        Matcher body = Pattern.compile("enum fastrmi_wait_mode \\{(.*?)\\};", Pattern.DOTALL).matcher(Files.readString(HEADER));
        assertTrue(body.find(), "no enum fastrmi_wait_mode in " + HEADER.toAbsolutePath());
        Map<String, Integer> inHeader = new LinkedHashMap<>();
        Matcher entry = Pattern.compile("FASTRMI_WAIT_(\\w+)\\s*=\\s*(\\d+)").matcher(body.group(1));
        while (entry.find()) {
            inHeader.put(entry.group(1).toLowerCase(Locale.ROOT), Integer.parseInt(entry.group(2)));
        }
        Map<String, Integer> inJava = new LinkedHashMap<>();
        for (WaitMode mode : WaitMode.values()) {
            inJava.put(mode.configName(), mode.nativeCode());
        }
        assertEquals(inHeader, inJava);
    }
}
