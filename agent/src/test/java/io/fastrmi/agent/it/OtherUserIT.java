package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fastrmi.sample.SampleClient;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.function.UnaryOperator;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client JVM of another user on the same host, with a config that lists a shared-memory transport
 * first: the server learns from the kernel whose the client's socket is, and never pairs shared
 * memory with it; the application runs on the next transport, tcp. (Run as root: the client runs
 * as nobody.)
 */
class OtherUserIT {

    private static final String NOBODY = "65534";

    /** In the JVM's temporary directory (/tmp), removed after each test. */
    @TempDir
    Path scratch;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx:shm", "ofi:shm"})
    void aProcessOfAnotherUserNeverGetsSharedMemory(String transport) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to start a JVM as another user");
        // Outside the checkout, which may sit where nobody cannot reach (a 0700 clone, root's home):
        // the agent, the config and the sample's classes are copied where nobody can read them.
        Path dir = scratch;
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        for (Path open : List.of(dir, tmp)) {
            Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        Path config = ItSupport.transportConfig(dir, transport);
        Path agent = Files.copy(ItSupport.agentJar(), dir.resolve("fastrmi-agent.jar"));
        UnaryOperator<JvmLauncher> server = jvm -> jvm.agent(agent, "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED");
        Path source = Path.of(SampleClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path readable = Files.isDirectory(source) ? source : Files.copy(source, dir.resolve("sample.jar"));
        UnaryOperator<JvmLauncher> nobody = jvm -> server.apply(jvm).classpath(readable)
                .wrapper("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups")
                .env("TMPDIR", tmp.toString()).env("USER", "nobody").env("HOME", tmp.toString());
        SampleRun run = SampleRun.run(Jdk.of(25), dir, server, nobody);

        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        List<RecordedEvent> handshakes = ItSupport.negotiations(run.serverJfr());
        assertTrue(handshakes.stream().anyMatch(event -> "fast".equals(event.getString("result"))), handshakes::toString);
        for (RecordedEvent event : handshakes) {
            if (isCallbackToAClientThatLeft(event)) {
                continue;
            }
            assertEquals("fast", event.getString("result"), event::toString);
            assertEquals("tcp", event.getString("transport"), event::toString);
        }
        List<String> output = run.serverOutput();
        assertTrue(output.stream().anyMatch(l -> l.contains(transport + " is not used with ")
                && l.contains("the peer is a process of uid " + NOBODY + ", not of this user (uid 0)")),
                () -> String.join("\n", output));
    }

    /**
     * The server's own call to the client's exported object (RMI's DGC renewing or cleaning it) that
     * met the client exiting: the client's end reset during the offer, which a stock call meets too.
     */
    private static boolean isCallbackToAClientThatLeft(RecordedEvent event) {
        return "client".equals(event.getString("side")) && "plain".equals(event.getString("result"))
                && String.valueOf(event.getString("reason")).startsWith("the connection reset during the FastRMI offer");
    }
}
