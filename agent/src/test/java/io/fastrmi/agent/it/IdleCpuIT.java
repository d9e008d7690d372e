package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.IdleClientMain;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two JVMs with 16 open, idle native connections between them use about no CPU: nothing polls.
 * The bound is generous (a busy-polling reader would use a whole core per second).
 */
class IdleCpuIT {

    private static final int CONNECTIONS = 16;
    private static final long IDLE_MILLIS = 3000;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx:shm", "ofi:tcp;ofi_rxm"})
    void idleNativeConnectionsCostNoCpu(String transport) throws Exception {
        Path dir = ItSupport.directory("idle-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Path agent = ItSupport.agentJar();
        Jdk jdk = Jdk.of(25);
        try (ManagedJvm server = JvmLauncher.on(jdk).name("server").agent(agent, "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED").jfr(dir.resolve("server.jfr"))
                .classpathOf(SampleServer.class).main(SampleServer.class).start()) {
            String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            try (ManagedJvm client = JvmLauncher.on(jdk).name("client").agent(agent, "config=" + config)
                    .jvmArgs("--enable-native-access=ALL-UNNAMED").classpathOf(SampleServer.class)
                    .classpathOf(IdleClientMain.class).main(IdleClientMain.class)
                    .args("127.0.0.1", port, String.valueOf(CONNECTIONS)).start()) {
                client.awaitLine(Pattern.compile("^IDLE$"), Duration.ofSeconds(60));
                Thread.sleep(1000); // let start-up work (JIT, JFR) settle
                long serverBefore = cpuMillis(server.pid());
                long clientBefore = cpuMillis(client.pid());
                Thread.sleep(IDLE_MILLIS);
                long serverCpu = cpuMillis(server.pid()) - serverBefore;
                long clientCpu = cpuMillis(client.pid()) - clientBefore;
                System.out.println(transport + ": " + CONNECTIONS + " idle connections for " + IDLE_MILLIS
                        + " ms: server CPU " + serverCpu + " ms, client CPU " + clientCpu + " ms");
                assertTrue(serverCpu < 300 && clientCpu < 300, "server " + serverCpu + " ms, client " + clientCpu + " ms");
                client.send("quit");
                assertEquals(0, client.awaitExit(Duration.ofSeconds(30)));
            }
            server.send("quit");
            assertEquals(0, server.awaitExit(Duration.ofSeconds(30)));
        }
        List<RecordedEvent> fast = ItSupport.events(dir.resolve("server.jfr"), "fastrmi.Handshake").stream()
                .filter(e -> transport.equals(e.getString("transport"))).toList();
        assertTrue(fast.size() >= CONNECTIONS, "connections on " + transport + ": " + fast.size());
    }

    /** User plus system CPU time of a process, from /proc (clock ticks of 10 ms). */
    private static long cpuMillis(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10;
    }
}
