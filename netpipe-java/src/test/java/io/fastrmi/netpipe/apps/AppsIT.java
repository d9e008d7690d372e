package io.fastrmi.netpipe.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fastrmi.netpipe.bench.report.Column;
import io.fastrmi.testkit.TestNetwork;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code make apps} at the quick size: SOR, ASP, TSP and N-body as coordinator and worker JVMs under the
 * agent, on 1, 2, 4 and 8 workers on this host ({@code ucx:shm}) and on 2 and 4
 * workers spread over network namespaces ({@code tcp}): every result equals the sequential one, and
 * every agent connection was fast on its transport (but those to a worker that was exiting, which
 * no RMI can reach).
 */
class AppsIT {

    @TempDir
    Path dir;

    private Path agent() {
        Path agent = Path.of(System.getProperty("fastrmi.agent.jar"));
        assumeTrue(Files.isRegularFile(agent), "no agent jar at " + agent);
        return agent;
    }

    @Test
    void everyApplicationGivesTheSequentialResultOnOneHost() throws Exception {
        assertAllRight(run("--workers", "1,2,4,8", "--transports", "ucx:shm", "--hosts", "local"), 4);
    }

    @Test
    void everyApplicationGivesTheSequentialResultAcrossHosts() throws Exception {
        assumeTrue(TestNetwork.available(), "network namespaces need root and iproute2");
        assertAllRight(run("--workers", "2,4", "--transports", "tcp", "--hosts", "netns"), 2);
    }

    private Map<String, Map<Integer, Map<String, AppRunner.Outcome>>> run(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("--agent", agent().toString(), "--size", "quick", "--results",
                dir.toString()));
        all.addAll(List.of(args));
        AppRunner.Options options = AppRunner.Options.parse(all.toArray(String[]::new));
        // The agent only: stock's results are the JDK's, checked in AppsTest; make apps times both.
        List<Column> columns = List.of(Column.agentOn(options.transports().get(0)));
        return AppRunner.run(options, columns);
    }

    private static void assertAllRight(Map<String, Map<Integer, Map<String, AppRunner.Outcome>>> results, int counts) {
        assertEquals(Apps.NAMES, List.copyOf(results.keySet()));
        results.forEach((app, byWorkers) -> {
            assertEquals(counts, byWorkers.size(), app);
            byWorkers.forEach((workers, cells) -> cells.forEach((column, cell) -> {
                assertTrue(cell.ok(), app + " on " + workers + " workers, " + column + ": " + cell.error());
                assertTrue(workers == 1 || cell.calls() > 0, app + " on " + workers + " workers made no call");
                assertTrue(cell.notFast() == null, app + " on " + workers + " workers, " + column + ": " + cell.notFast());
            }));
        });
    }
}
