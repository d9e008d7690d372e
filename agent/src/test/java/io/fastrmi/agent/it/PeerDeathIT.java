package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.SleepClientMain;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server killed with SIGKILL in the middle of a call: the client's call fails with an exception
 * soon after, on every transport (the native ones learn it from the control channel), never hangs.
 */
class PeerDeathIT {

    private static final Pattern FAILED = Pattern.compile("^FAILED (\\S+) after (\\d+) ms$");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "ucx:shm", "ofi:tcp;ofi_rxm"})
    void aCallToAKilledServerFailsPromptly(String transport) throws Exception {
        Path dir = ItSupport.directory("peer-death-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Jdk jdk = Jdk.of(25);
        try (ManagedJvm server = ItSupport.agentSampleServer(jdk, config)) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = ItSupport.agentClient(jdk, config, SleepClientMain.class, "127.0.0.1", port)) {
                client.awaitLine(Pattern.compile("^CALLING$"), Duration.ofSeconds(60));
                Thread.sleep(1000);
                server.close(); // SIGKILL
                Matcher failed = client.awaitLine(FAILED, Duration.ofSeconds(30));
                System.out.println(transport + ": " + failed.group(0));
                assertTrue(Long.parseLong(failed.group(2)) < 30_000, failed.group(0));
                assertTrue(failed.group(1).startsWith("java.rmi."), failed.group(0));
                assertEquals(0, client.awaitExit(Duration.ofSeconds(30)));
            }
        }
    }
}
