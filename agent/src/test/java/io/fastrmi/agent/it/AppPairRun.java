package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * One run of a server main and a client main from the sample package (any pair that speaks the
 * {@code READY port=P} / {@code quit} protocol of {@link SampleServer}, the client taking the port as
 * its last argument): each JVM records JFR into the given directory, the client runs to its end (exit
 * code 0), then the server is stopped with "quit" so that its recording is complete.
 */
record AppPairRun(List<String> serverOutput, List<String> clientOutput, Path serverJfr, Path clientJfr) {

    /**
     * {@code server} and {@code client} complete the launchers (main class, agent, flags);
     * {@code clientArgs} come before the host and port.
     */
    static AppPairRun run(Jdk serverJdk, Jdk clientJdk, Path dir, UnaryOperator<JvmLauncher> server,
            UnaryOperator<JvmLauncher> client, List<String> clientArgs) {
        Path serverJfr = dir.resolve("server.jfr");
        Path clientJfr = dir.resolve("client.jfr");
        try (ManagedJvm serverJvm = server.apply(JvmLauncher.on(serverJdk).name("server").jfr(serverJfr)
                .classpathOf(SampleServer.class).timeLimit(Duration.ofMinutes(2))).start()) {
            String port = serverJvm.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            List<String> clientOutput;
            try (ManagedJvm clientJvm = client.apply(JvmLauncher.on(clientJdk).name("client").jfr(clientJfr)
                    .classpathOf(SampleServer.class).timeLimit(Duration.ofMinutes(2))).args(clientArgs)
                    .args("127.0.0.1", port).start()) {
                assertEquals(0, clientJvm.awaitExit(Duration.ofMinutes(1)),
                        () -> clientJvm.failure("client exit code").getMessage());
                clientOutput = clientJvm.output();
            }
            serverJvm.send("quit");
            assertEquals(0, serverJvm.awaitExit(Duration.ofSeconds(60)),
                    () -> serverJvm.failure("server exit code").getMessage());
            return new AppPairRun(serverJvm.output(), clientOutput, serverJfr, clientJfr);
        }
    }
}
