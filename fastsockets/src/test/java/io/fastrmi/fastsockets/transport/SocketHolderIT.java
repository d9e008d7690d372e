package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The handshake's check that the process a shared-memory address names holds the peer's end of the
 * connection ({@code fastrmi_process_holds_socket}), through each binding.
 */
class SocketHolderIT {

    @ParameterizedTest(name = "JDK {0} through {1}")
    @MethodSource("io.fastrmi.fastsockets.transport.LibraryJvm#bindings")
    void onlyTheProcessThatHasTheSocketOpenHoldsIt(int feature, String binding) throws Exception {
        List<String> output = LibraryJvm.run(feature, binding, "holder", SocketHolderMain.class);
        Map<String, String> answers = output.stream().filter(l -> l.startsWith("HOLDS "))
                .map(l -> l.split(" ")).collect(Collectors.toMap(f -> f[1], f -> f[2]));
        String all = String.join("\n", output);
        assertEquals("true", answers.get("self"), all);
        for (String other : new String[] {"other", "another-inode", "pid-0", "pid-negative", "pid-max", "closed"}) {
            assertEquals("false", answers.get(other), other + "\n" + all);
        }
    }
}
