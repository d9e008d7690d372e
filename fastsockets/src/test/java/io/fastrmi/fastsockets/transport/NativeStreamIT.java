package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.config.TransportName;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Native byte streams between two JVMs through each binding (FFM and JNI on JDK 25, JNI on 17), on
 * each backend and provider: every size from 1 byte to 16 MiB comes back intact, primitive arrays written straight
 * from the array and read straight into one too, and the end of the stream arrives; a callback's two sides nudge each other.
 */
class NativeStreamIT {

    /** Each transport through each binding: FFM on 25, JNI on 25 and on 17 (where FFM is not final). */
    static List<Arguments> transportsAndBindings() {
        List<Arguments> cases = new ArrayList<>();
        for (String transport : List.of("ofi:shm", "ofi:tcp;ofi_rxm", "ucx:shm", "ucx:tcp")) {
            cases.add(Arguments.of(transport, 25, "ffm"));
            cases.add(Arguments.of(transport, 25, "jni"));
            cases.add(Arguments.of(transport, 17, "jni"));
        }
        return cases;
    }

    @ParameterizedTest(name = "{0} on JDK {1} through {2}")
    @MethodSource("transportsAndBindings")
    void anEchoComesBackIntact(String transport, int feature, String binding) throws Exception {
        Path library = Path.of(System.getProperty("fastrmi.native.library"));
        Jdk jdk = Jdk.of(feature);
        try (ManagedJvm server = launch(jdk, "server", library, transport, NativeEchoMain.class, binding).start()) {
            String port = server.awaitLine(java.util.regex.Pattern.compile("^READY port=(\\d+)$"), Duration.ofSeconds(30))
                    .group(1);
            try (ManagedJvm client = launch(jdk, "client", library, transport, NativeEchoMain.class, binding).args(port)
                    .start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(2)), () -> client.failure("client").getMessage());
                assertTrue(client.output().stream().anyMatch(l -> l.startsWith("BINDING " + binding + " (")),
                        () -> String.join("\n", client.output()));
                List<String> expected = new ArrayList<>();
                for (int size : NativeEchoMain.SIZES) {
                    expected.add("ECHO " + size);
                }
                expected.add("ARRAY 800000");
                expected.add("ARRAY 4000");
                expected.add("EOF");
                expected.add("DONE");
                assertEquals(expected, client.output().stream()
                        .filter(l -> l.startsWith("ECHO") || l.startsWith("ARRAY") || l.equals("EOF") || l.equals("DONE")).collect(Collectors.toList()),
                        () -> String.join("\n", client.output()));
            }
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), () -> server.failure("server").getMessage());
        }
    }

    /**
     * JNI's own failure: a library without FastRMI's JNI methods (another build's, or none of ours)
     * is refused before any call, by name, and the JVM goes on (here the echo's main says why and
     * exits; the agent falls back to tcp).
     */
    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void aLibraryWithoutTheJniMethodsIsRefusedByName(int feature) throws Exception {
        Path other = Path.of("/lib/x86_64-linux-gnu/libm.so.6");
        try (ManagedJvm jvm = launch(Jdk.of(feature), "server", other, "ucx:shm", NativeEchoMain.class, "jni").start()) {
            assertEquals(1, jvm.awaitExit(Duration.ofSeconds(60)), () -> String.join("\n", jvm.output()));
            String all = String.join("\n", jvm.output());
            assertTrue(all.contains("cannot load " + other + " through jni (binding = jni): java.lang.UnsatisfiedLinkError"),
                    all);
        }
    }

    /**
     * A callback's turns ({@link NativeCallbackMain}): every answer right, and once each side of the
     * client has seen the other's data come first, its reads nudge the other's reader: here 55-92%
     * of the calls (the first few teach them, and a turn the scheduler ran late breaks a streak,
     * which 3 more calls rebuild), none without the nudges.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ofi:shm", "ofi:tcp;ofi_rxm", "ucx:shm", "ucx:tcp"})
    void aCallbacksTwoSidesNudgeEachOther(String transport) throws Exception {
        Path library = Path.of(System.getProperty("fastrmi.native.library"));
        Jdk jdk = Jdk.of(25);
        try (ManagedJvm server = launch(jdk, "server", library, transport, NativeCallbackMain.class).start()) {
            String port = server.awaitLine(java.util.regex.Pattern.compile("^READY port=(\\d+)$"), Duration.ofSeconds(30))
                    .group(1);
            try (ManagedJvm client = launch(jdk, "client", library, transport, NativeCallbackMain.class).args(port).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(2)), () -> client.failure("client").getMessage());
                String all = String.join("\n", client.output());
                assertTrue(client.output().contains("CALLS " + NativeCallbackMain.CALLS), all);
                assertTrue(count(client.output(), "CALLER-NUDGED ") >= NativeCallbackMain.CALLS / 4, all);
                assertTrue(count(client.output(), "HANDLER-NUDGED ") >= NativeCallbackMain.CALLS / 4, all);
            }
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)), () -> server.failure("server").getMessage());
        }
    }

    private static long count(List<String> output, String prefix) {
        return output.stream().filter(l -> l.startsWith(prefix)).mapToLong(l -> Long.parseLong(l.substring(prefix.length())))
                .findFirst().orElse(-1);
    }

    private static JvmLauncher launch(Jdk jdk, String role, Path library, String transport, Class<?> main) {
        return launch(jdk, role, library, transport, main, "ffm");
    }

    private static JvmLauncher launch(Jdk jdk, String role, Path library, String transport, Class<?> main,
            String binding) {
        JvmLauncher launcher = JvmLauncher.on(jdk).name(role).jvmArgs("-Dfastrmi.binding=" + binding);
        if (jdk.feature() >= 22) {
            launcher.jvmArgs("--enable-native-access=ALL-UNNAMED");
        }
        return launcher
                .classpath(Path.of(System.getProperty("fastrmi.fastsockets.jar")))
                .classpath(JvmLauncher.codeSourceOf(TransportName.class))
                .classpath(JvmLauncher.codeSourceOf(NativeEchoMain.class))
                .main(main).args(role, library.toString(), transport).timeLimit(Duration.ofMinutes(3));
    }
}
