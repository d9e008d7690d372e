package io.fastrmi.netpipe.bench.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fastrmi.netpipe.bench.report.Column;
import io.fastrmi.testkit.TestNetwork;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The mesh bench of {@code make bench} at a small size: four hosts (network namespaces), stock RMI and the
 * agent on tcp, every host calling at once in both patterns. Every call is made, none is lost, and every
 * agent connection was fast on tcp (else the column has an error).
 */
class MeshIT {

    private static final int CALLS = 200;

    @TempDir
    Path dir;

    @Test
    void fourHostsCallEachOtherAtOnceAndLoseNoCall() throws Exception {
        assumeTrue(TestNetwork.available(), "network namespaces need root and iproute2");
        Path agent = Path.of(System.getProperty("fastrmi.agent.jar"));
        assumeTrue(Files.isRegularFile(agent), "no agent jar at " + agent);
        Mesh.Options options = Mesh.Options.parse(new String[] {"--agent", agent.toString(), "--hosts", "4",
                "--calls", String.valueOf(CALLS), "--warmup", "50", "--rounds", "1", "--transports", "tcp",
                "--results", dir.toString()});

        Map<Column, List<Mesh.ColumnRound>> results = Mesh.run(options);

        assertEquals(List.of(), Mesh.problems(results));
        for (List<Mesh.ColumnRound> rounds : results.values()) {
            Mesh.ColumnRound round = rounds.get(0);
            assertNull(round.error());
            assertEquals(3L * MeshPeer.THREADS * CALLS, round.runs().get(MeshPattern.STAR).calls());
            assertEquals(4L * MeshPeer.THREADS * CALLS, round.runs().get(MeshPattern.ALL_TO_ALL).calls());
            round.runs().values().forEach(run -> assertTrue(run.nanos() > 0 && run.lost() == 0, run.toString()));
        }
    }
}
