package io.fastrmi.netpipe.np;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class SizeScheduleTest {

    @Test
    void startsAsNetPipeDoesWithPowersOfTwoAndThreeTimesPowersOfTwoThenPerturbations() {
        assertEquals(List.of(1, 2, 3, 4, 6, 8, 12, 13, 16, 19, 21, 24, 27, 29, 32, 35, 45, 48, 51, 61, 64, 67),
                SizeSchedule.sizes(1, 67, 3));
    }

    @Test
    void withoutPerturbationOnlyTheBaseSizes() {
        assertEquals(List.of(1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128), SizeSchedule.sizes(1, 128, 0));
    }

    @Test
    void reachesEightMebibytesAndNeverPassesTheUpperBound() {
        List<Integer> sizes = SizeSchedule.sizes(1, 8 * 1024 * 1024, 3);
        assertEquals(8 * 1024 * 1024, sizes.get(sizes.size() - 1));
        assertTrue(sizes.contains(8 * 1024 * 1024 - 3));
        assertTrue(sizes.contains(3 * 1024 * 1024));
        for (int i = 1; i < sizes.size(); i++) {
            assertTrue(sizes.get(i) > sizes.get(i - 1), "increasing, each once: " + sizes);
        }
    }

    @Test
    void aLowerBoundStartsTheStepsFromIt() {
        assertEquals(List.of(64, 96, 128, 192, 256), SizeSchedule.sizes(64, 256, 0));
    }

    @Test
    void refusesBoundsThatMakeNoSchedule() {
        assertThrows(IllegalArgumentException.class, () -> SizeSchedule.sizes(0, 10, 3));
        assertThrows(IllegalArgumentException.class, () -> SizeSchedule.sizes(10, 9, 3));
        assertThrows(IllegalArgumentException.class, () -> SizeSchedule.sizes(1, 10, -1));
    }
}
