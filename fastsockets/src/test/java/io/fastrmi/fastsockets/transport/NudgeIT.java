package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A callback's turns over TCP, read through {@link PollingInput}s with the library's nudges
 * ({@link NudgeMain}): once the caller has seen that its handler's data comes first after its
 * requests, it nudges the handler at each request, and the handler likewise the caller at each
 * reply; a nudge wakes the other side from its sleep (the server thinks longer than the nudged
 * spin lasts, so each then sleeps again until its data comes), and every byte arrives as sent.
 * Without the nudges neither side is ever woken but by its socket. Asleep so, a socket's SO_TIMEOUT
 * still fires, and a close from another thread still ends the read. Through each binding: the
 * nudges and the socket's descriptor are the same on JDK 17 through JNI.
 */
class NudgeIT {

    /** The rounds before both sides are confident (3 each), and slack for nudges that came late. */
    private static final int LEARNING = 2 * FirstArrival.CONFIDENT + 2;

    @ParameterizedTest(name = "JDK {0} through {1}")
    @MethodSource("io.fastrmi.fastsockets.transport.LibraryJvm#bindings")
    void eachSideOfACallbackNudgesTheOther(int feature, String binding) throws Exception {
        List<String> output = LibraryJvm.run(feature, binding, "nudge", NudgeMain.class, "--add-opens=java.base/java.net=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED");
        Map<String, Long> checks = output.stream().filter(l -> l.startsWith("CHECK ") && !l.endsWith("true")
                && !l.endsWith("false")).map(l -> l.split(" ")).collect(Collectors.toMap(f -> f[1], f -> Long.parseLong(f[2])));
        String all = String.join("\n", output);
        assertTrue(output.contains("CHECK socket-fd-found true"), all);
        assertTrue(output.contains("CHECK timed-out true"), all);
        assertTrue(output.contains("CHECK reads-after-a-timeout true"), all);
        assertTrue(output.contains("CHECK closed-while-asleep true"), all);
        assertEquals(NudgeMain.ROUNDS, checks.get("rounds-right"), all);
        // A nudge reaches a side only while it sleeps: slack for a scheduler that ran it late.
        long half = (NudgeMain.ROUNDS - LEARNING) / 2;
        assertTrue(checks.get("handler-nudged") >= half, all);
        assertTrue(checks.get("caller-nudged") >= half, all);
    }
}
