package io.fastrmi.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {

    @Test
    void noArgumentMeansNoOptions() {
        assertEquals(AgentOptions.NONE, AgentOptions.parse(null));
        assertEquals(AgentOptions.NONE, AgentOptions.parse(""));
    }

    @Test
    void configIsParsed() {
        assertEquals(Optional.of(Path.of("/etc/fastrmi.conf")), AgentOptions.parse("config=/etc/fastrmi.conf").config());
    }

    @Test
    void badArgumentsAreNamed() {
        assertEquals("unknown agent argument key 'confg' (known keys: config)",
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("confg=x")).getMessage());
        assertEquals("agent argument 'verbose' is not key=value (known keys: config)",
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("verbose")).getMessage());
        assertEquals("agent argument config= needs a file path",
                assertThrows(IllegalArgumentException.class, () -> AgentOptions.parse("config=")).getMessage());
    }

    @Test
    void configSourceOrderIsArgumentPropertyEnvironmentDefaults() {
        Map<String, String> env = Map.of("FASTRMI_CONFIG", "/env.conf");
        assertEquals("/arg.conf (from agent argument config=)",
                AgentOptions.parse("config=/arg.conf").configSource(env, "/prop.conf").toString());
        assertEquals("/prop.conf (from -Dfastrmi.config)", AgentOptions.NONE.configSource(env, "/prop.conf").toString());
        assertEquals("/env.conf (from FASTRMI_CONFIG)", AgentOptions.NONE.configSource(env, null).toString());
        assertEquals(Optional.empty(), AgentOptions.NONE.configSource(Map.of(), null).file());
        assertEquals("built-in defaults", AgentOptions.NONE.configSource(Map.of(), "  ").origin());
    }
}
