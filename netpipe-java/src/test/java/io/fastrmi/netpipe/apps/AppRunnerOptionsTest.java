package io.fastrmi.netpipe.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The runner's command line: JVMs record JFR (and connections are checked) unless {@code --jfr off}. */
class AppRunnerOptionsTest {

    @Test
    void recordsUnlessAskedNotTo() {
        assertTrue(AppRunner.Options.parse(new String[] {"--agent", "a.jar"}).recorded());
        assertTrue(AppRunner.Options.parse(new String[] {"--agent", "a.jar", "--jfr", "on"}).recorded());
        assertFalse(AppRunner.Options.parse(new String[] {"--agent", "a.jar", "--jfr", "off"}).recorded());
        assertEquals("--jfr is on or off, not no", assertThrows(IllegalArgumentException.class,
                () -> AppRunner.Options.parse(new String[] {"--agent", "a.jar", "--jfr", "no"})).getMessage());
    }
}
