package io.fastrmi.netpipe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The runnable jar, as compare.sh runs it: a server and a client of each protocol from
 * target/netpipe-java.jar alone (its merged service files included: gRPC finds its load balancer
 * through them).
 */
class NetPipeJarIT {

    private static final Pattern READY = Pattern.compile("^READY (\\d+)$");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"rmi", "dirmi", "grpc"})
    void serverAndClientRunFromTheJarAlone(String protocol) throws Exception {
        Path jar = Path.of(System.getProperty("netpipe.jar"));
        Jdk jdk = Jdk.at(Path.of(System.getProperty("java.home"))).orElseThrow();
        try (ManagedJvm server = JvmLauncher.on(jdk).name(protocol + "-server").classpath(jar).main(NetPipe.class)
                .args("server", "--mode", protocol).timeLimit(Duration.ofMinutes(2)).start()) {
            String port = server.awaitLine(READY, Duration.ofSeconds(30)).group(1);
            Path out = dir.resolve(protocol + ".out");
            try (ManagedJvm client = JvmLauncher.on(jdk).name(protocol + "-client").classpath(jar).main(NetPipe.class)
                    .args("kernel", "-h", "127.0.0.1", "-P", port, "--peer", protocol, "--kernel", "obj", "--obj", "tree15",
                            "--warmup", "500", "--trial-time", "0.01", "-o", out.toString())
                    .timeLimit(Duration.ofMinutes(2)).start()) {
                assertEquals(0, client.awaitExit(Duration.ofMinutes(1)), String.join("\n", client.output()));
            }
            assertTrue(Files.readString(out).trim().matches("0 0\\.000000 [0-9.]+"), Files.readString(out));
        }
    }
}
