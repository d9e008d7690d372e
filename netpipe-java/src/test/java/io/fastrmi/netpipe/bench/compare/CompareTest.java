package io.fastrmi.netpipe.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fastrmi.netpipe.NetPipe;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short side-by-side run over real JVMs: stock RMI and Dirmi on the quick plan, and a peer whose JVM
 * cannot start (an agent jar that does not exist), whose cells must say so while the run goes on.
 */
class CompareTest {

    @TempDir
    Path results;

    @Test
    void writesTableJsonNpOutAndPlotsAndSurvivesAPeerThatFails() throws IOException {
        Path missingAgent = results.resolve("no-such-agent.jar");
        int exit = NetPipe.commandLine().execute("compare", "--quick", "--load", "quiet", "--no-floors",
                "--peers", "stock,tcp,dirmi", "--agent", missingAgent.toString(), "--results", results.toString());
        assertEquals(0, exit);
        Path run;
        try (Stream<Path> runs = Files.list(results)) {
            run = runs.filter(p -> p.getFileName().toString().startsWith("compare-")).findFirst().orElseThrow();
        }
        String table = Files.readString(run.resolve("table.txt"));
        assertTrue(table.contains("stock RMI") && table.contains("Dirmi") && table.contains("agent tcp"), table);
        assertTrue(table.contains("the server did not start"), "the failed peer's reason is in the table:\n" + table);

        JsonNode json = new ObjectMapper().readTree(run.resolve("summary.json").toFile());
        int stockTimed = 0;
        for (JsonNode cell : json.get("cells")) {
            String peer = cell.get("peer").asText();
            String status = cell.get("status").asText();
            if (peer.equals("tcp")) {
                assertEquals("failed", status, cell.toString());
            } else {
                assertEquals("ok", status, cell.toString());
                assertTrue(cell.get("call_us").asDouble() > 0, cell.toString());
                assertTrue(Files.size(run.resolve(cell.get("np_out").asText())) > 0, cell.toString());
                stockTimed += peer.equals("stock") ? 1 : 0;
            }
        }
        assertEquals(ComparePlan.QUICK.items().size(), stockTimed);
        for (String plot : List.of("quiet-byte-latency.png", "quiet-byte-bandwidth.png")) {
            byte[] png = Files.readAllBytes(run.resolve("plots").resolve(plot));
            assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', plot);
        }
    }
}
