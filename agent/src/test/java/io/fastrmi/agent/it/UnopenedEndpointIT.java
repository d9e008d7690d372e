package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.sample.SampleClient;
import io.fastrmi.sample.SampleServer;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client that cannot open the native endpoint a server's answer names (here the server's files in
 * the user's folder were removed, as another container's sweep once did, issue 38) connects again
 * over tcp, once, and every call succeeds; its {@code fastrmi.Handshake} event says why.
 */
class UnopenedEndpointIT {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ucx:shm", "ofi:shm"})
    void aClientThatCannotOpenTheAnsweredEndpointFallsBackToTcp(String transport) throws Exception {
        Path dir = ItSupport.directory("unopened-" + transport);
        Path config = ItSupport.transportConfig(dir, transport);
        Jdk jdk = Jdk.of(25);
        UnaryOperator<JvmLauncher> withAgent = jvm -> ItSupport.underAgent(jvm, config);
        SampleRun run = SampleRun.run(jdk, jdk, dir, withAgent, withAgent, server -> {
            try {
                String port = server.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
                // A first client opens the server's contexts, the spare the next client gets included.
                try (ManagedJvm first = ItSupport.underAgent(JvmLauncher.on(jdk).name("first-client"), config)
                        .classpathOf(SampleClient.class).main(SampleClient.class).args("127.0.0.1", port).start()) {
                    assertEquals(0, first.awaitExit(Duration.ofMinutes(2)), () -> first.failure("exit code").getMessage());
                }
                List<Path> removed = removeFilesOf(server.pid());
                assertFalse(removed.isEmpty(), "the server's files in the user's folder");
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });

        assertEquals(SampleAppIT.expectedTranscript(), run.transcript());
        List<RecordedEvent> handshakes = ItSupport.negotiations(run.clientJfr()).stream()
                .filter(e -> "client".equals(e.getString("side"))).collect(Collectors.toList());
        List<RecordedEvent> fallbacks = handshakes.stream().filter(e -> "fallback".equals(e.getString("result")))
                .collect(Collectors.toList());
        assertFalse(fallbacks.isEmpty(), handshakes::toString);
        for (RecordedEvent event : fallbacks) {
            assertTrue(event.getString("reason").startsWith("cannot open the server's " + transport + " endpoint"),
                    event::toString);
        }
        for (RecordedEvent event : handshakes) {
            if (!"fallback".equals(event.getString("result"))) {
                assertEquals("fast", event.getString("result"), event::toString);
                assertEquals("tcp", event.getString("transport"), event::toString);
            }
        }
        assertTrue(run.clientOutput().stream().anyMatch(l -> l.contains("connecting again over tcp")),
                () -> String.join("\n", run.clientOutput()));
    }

    /** Removes process {@code pid}'s files and pipes from the user's folders under /dev/shm; the paths removed. */
    private static List<Path> removeFilesOf(long pid) throws IOException {
        List<Path> removed;
        try (Stream<Path> folders = Files.list(Path.of("/dev/shm"))) {
            removed = folders.filter(p -> p.getFileName().toString().startsWith("fastrmi-") && Files.isDirectory(p))
                    .flatMap(folder -> {
                        try {
                            return Files.list(folder).toList().stream();
                        } catch (IOException e) {
                            return Stream.empty();
                        }
                    })
                    .filter(p -> p.getFileName().toString().matches("[a-z]+-ns[0-9]+-" + pid + "-.*"))
                    .collect(Collectors.toList());
        }
        for (Path file : removed) {
            Files.deleteIfExists(file);
        }
        return removed;
    }
}
