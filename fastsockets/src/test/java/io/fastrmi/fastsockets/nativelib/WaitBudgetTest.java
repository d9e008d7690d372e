package io.fastrmi.fastsockets.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class WaitBudgetTest {

    private static final Path HEADER = Path.of("..", "native", "include", "fastrmi.h");

    @Test
    void theNativeSizeIsTheHeaders() throws Exception {
        Matcher size = Pattern.compile("#define FASTRMI_WAIT_BUDGET_SIZE (\\d+)").matcher(Files.readString(HEADER));
        assertTrue(size.find(), "no FASTRMI_WAIT_BUDGET_SIZE in " + HEADER.toAbsolutePath());
        assertEquals(Long.parseLong(size.group(1)), WaitBudget.NATIVE_SIZE);
    }
}
