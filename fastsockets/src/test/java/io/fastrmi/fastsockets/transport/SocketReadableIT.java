package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The look at a pooled TCP connection that stands in for RMI's ping ({@code
 * fastrmi_socket_readable}), through each binding: nothing to read while idle, something once data
 * or the peer's end came, and a descriptor that is not open refused by name.
 */
class SocketReadableIT {

    @ParameterizedTest(name = "JDK {0} through {1}")
    @MethodSource("io.fastrmi.fastsockets.transport.LibraryJvm#bindings")
    void aLookTellsDataAndThePeersEndFromAnIdleSocket(int feature, String binding) throws Exception {
        List<String> output = LibraryJvm.run(feature, binding, "readable", SocketReadableMain.class,
                "--add-opens", "java.base/java.net=ALL-UNNAMED", "--add-opens", "java.base/java.io=ALL-UNNAMED");
        Map<String, String> answers = output.stream().filter(l -> l.startsWith("READABLE "))
                .map(l -> l.split(" ", 3)).collect(Collectors.toMap(f -> f[1], f -> f[2]));
        String all = String.join("\n", output);
        assertEquals("true", answers.get("descriptor"), all);
        assertEquals("false", answers.get("idle"), all);
        assertEquals("true", answers.get("data"), all);
        assertEquals("false", answers.get("read"), all);
        assertEquals("true", answers.get("peer-closed"), all);
        String notOpen = answers.get("not-open");
        assertTrue(notOpen != null && notOpen.contains("FASTRMI_ERR_INVALID") && notOpen.contains(
                "fd " + Integer.MAX_VALUE), all);
    }
}
