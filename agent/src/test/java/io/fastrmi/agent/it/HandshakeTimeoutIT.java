package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.HandshakeTimeoutMain;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * OpenJDK's HandshakeTimeout case: a server that accepts and never answers. The agent follows
 * {@code sun.rmi.transport.tcp.handshakeTimeout} whether the application sets it in main or on the
 * command line, fails the lookup with stock RMI's exceptions after one timeout (not the offer's and
 * then a plain retry's), and records the failed negotiation.
 */
class HandshakeTimeoutIT {

    private static final int TIMEOUT_MILLIS = 5000;
    private static final Pattern OUTCOME = Pattern.compile("^(FAILED (\\S+(?: / \\S+)*) after (\\d+) ms|RETURNED)$");

    @ParameterizedTest(name = "set {0}")
    @ValueSource(strings = {"main", "command-line"})
    void aSilentServerFailsTheLookupAfterOneTimeout(String where) throws Exception {
        Path dir = ItSupport.directory("handshake-timeout-" + where);
        Path jfr = dir.resolve("agent.jfr");
        Matcher stock = outcome(JvmLauncher.on(Jdk.of(25)).name("stock"), where);
        Matcher agent = outcome(JvmLauncher.on(Jdk.of(25)).name("agent").agent(ItSupport.agentJar()).jfr(jfr), where);
        assertEquals(stock.group(2), agent.group(2), "stock: " + stock.group(0) + "; agent: " + agent.group(0));
        long agentMillis = Long.parseLong(agent.group(3));
        // The bug this guards against waited the default 60 s, or the timeout twice.
        assertTrue(agentMillis < 2 * TIMEOUT_MILLIS, "one timeout of " + TIMEOUT_MILLIS + " ms, not two: " + agent.group(0));
        List<RecordedEvent> handshakes = ItSupport.events(jfr, "fastrmi.Handshake");
        assertTrue(handshakes.stream().anyMatch(e -> "failed".equals(e.getString("result"))
                && e.getString("reason").contains("not answered within " + TIMEOUT_MILLIS + " ms")), handshakes::toString);
    }

    private static Matcher outcome(JvmLauncher jvm, String where) {
        String timeout = String.valueOf(TIMEOUT_MILLIS);
        if (!where.equals("main")) {
            jvm.jvmArgs("-Dsun.rmi.transport.tcp.handshakeTimeout=" + timeout);
        }
        try (ManagedJvm run = jvm.jvmArgs("--enable-native-access=ALL-UNNAMED").classpathOf(HandshakeTimeoutMain.class)
                .main(HandshakeTimeoutMain.class).args(where, timeout).start()) {
            Matcher line = run.awaitLine(OUTCOME, Duration.ofSeconds(120));
            run.awaitExit(Duration.ofSeconds(30)); // the recording is written at exit
            System.out.println(run.name() + ", set " + where + ": " + line.group(0));
            return line;
        }
    }
}
