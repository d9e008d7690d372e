package io.fastrmi.netpipe.apps;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The runner ends a run as soon as one worker JVM fails, whichever it is: a worker that waits
 * for a dead one (as a crashed ASP worker's peers did, until the 10-minute limit) must not hold it.
 */
class AppRunnerWorkersTest {

    @Test
    void aFailedWorkerEndsTheRunWhileAnotherStillWaits() throws Exception {
        // A coordinator waits for its workers forever; a worker given no arguments exits with 2.
        try (ManagedJvm waiting = launch("waiting").main(AppCoordinator.class).args("sor", "quick", "1", "0").start();
                ManagedJvm failing = launch("failing").main(AppWorker.class).start()) {
            waiting.awaitLine(AppCoordinator.READY, Duration.ofSeconds(60));
            Optional<String> failure = AppRunner.awaitWorkers(List.of(waiting, failing));
            assertTrue(failure.isPresent() && failure.get().startsWith("a worker exited with 2"),
                    () -> "failure: " + failure);
            assertTrue(waiting.isAlive(), "the run ended before the waiting worker did");
        }
    }

    private static JvmLauncher launch(String name) {
        return JvmLauncher.on(Jdk.at(Path.of(System.getProperty("java.home"))).orElseThrow()).name(name)
                .classpathOf(AppWorker.class).timeLimit(Duration.ofMinutes(2));
    }
}
