package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * One run of the sample application: a server JVM and a client JVM, each recording JFR into the
 * given directory; the server is stopped with "quit" so that its recording is complete.
 */
record SampleRun(List<String> transcript, List<String> serverOutput, List<String> clientOutput,
        Path serverJfr, Path clientJfr) {

    static SampleRun run(Jdk jdk, Path dir, UnaryOperator<JvmLauncher> server, UnaryOperator<JvmLauncher> client) {
        return run(jdk, jdk, dir, server, client, started -> { });
    }

    static SampleRun run(Jdk serverJdk, Jdk clientJdk, Path dir, UnaryOperator<JvmLauncher> server,
            UnaryOperator<JvmLauncher> client) {
        return run(serverJdk, clientJdk, dir, server, client, started -> { });
    }

    /** {@code beforeClient} runs once the server is ready (to attach an agent to it, say). */
    static SampleRun run(Jdk serverJdk, Jdk clientJdk, Path dir, UnaryOperator<JvmLauncher> server,
            UnaryOperator<JvmLauncher> client, java.util.function.Consumer<ManagedJvm> beforeClient) {
        Path serverJfr = dir.resolve("server.jfr");
        Path clientJfr = dir.resolve("client.jfr");
        try (ManagedJvm serverJvm = server.apply(JvmLauncher.on(serverJdk).name("server").jfr(serverJfr)
                .classpathOf(SampleServer.class).main(SampleServer.class)).start()) {
            String port = serverJvm.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            beforeClient.accept(serverJvm);
            List<String> transcript;
            List<String> clientOutput;
            try (ManagedJvm clientJvm = client.apply(JvmLauncher.on(clientJdk).name("client").jfr(clientJfr)
                    .classpathOf(SampleClient.class).main(SampleClient.class).args("127.0.0.1", port)).start()) {
                assertEquals(0, clientJvm.awaitExit(Duration.ofMinutes(2)),
                        () -> clientJvm.failure("client exit code").getMessage());
                clientOutput = clientJvm.output();
                transcript = clientOutput.stream().filter(l -> l.startsWith("CALL ")).collect(Collectors.toList());
            }
            serverJvm.send("quit");
            assertEquals(0, serverJvm.awaitExit(Duration.ofSeconds(60)));
            return new SampleRun(transcript, serverJvm.output(), clientOutput, serverJfr, clientJfr);
        }
    }
}
