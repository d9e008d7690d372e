package io.fastrmi.netpipe.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ColumnTest {

    @Test
    void aColumnsSettingsAreConfigLinesAndItsAgentJar() {
        Column column = Column.agentOn("ucx:shm@wait=spin@agent=/tmp/before/fastrmi-agent.jar@native-library=/tmp/a.so");
        assertEquals("ucx:shm", column.transport());
        assertEquals(List.of("wait = spin", "native-library = /tmp/a.so"), column.globalLines());
        assertEquals(Optional.of(Path.of("/tmp/before/fastrmi-agent.jar")), column.agentJar());
        assertEquals("ucx:shm@wait=spin@agent=/tmp/before/fastrmi-agent.jar@native-library=/tmp/a.so", column.name());
    }

    @Test
    void withoutOneTheBenchsAgentRunsIt() {
        Column column = Column.agentOn("ofi:shm");
        assertEquals(List.of(), column.globalLines());
        assertEquals(Optional.empty(), column.agentJar());
        assertEquals(Optional.empty(), Column.STOCK.agentJar());
    }
}
