package io.fastrmi.netpipe.bench.mesh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class MeshPatternTest {

    @Test
    void starHasEveryHostButTheHubCallTheHub() {
        assertEquals(List.of(), MeshPattern.STAR.targets(0, 4));
        assertEquals(List.of(0), MeshPattern.STAR.targets(3, 4));
    }

    @Test
    void allToAllHasEveryHostCallEveryOtherOneStartingWithItsNext() {
        assertEquals(List.of(1, 2, 3), MeshPattern.ALL_TO_ALL.targets(0, 4));
        assertEquals(List.of(3, 0, 1), MeshPattern.ALL_TO_ALL.targets(2, 4));
        assertEquals(List.of(0), MeshPattern.ALL_TO_ALL.targets(1, 2));
    }

    @Test
    void labelsRoundTrip() {
        for (MeshPattern pattern : MeshPattern.values()) {
            assertEquals(pattern, MeshPattern.ofLabel(pattern.label()));
        }
        assertEquals("all-to-all", MeshPattern.ALL_TO_ALL.label());
        assertThrows(IllegalArgumentException.class, () -> MeshPattern.ofLabel("ring"));
    }
}
