package io.fastrmi.netpipe.np;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PointTest {

    @Test
    void keepsTheBestTrialAndHalvesItsRoundTrip() {
        Point point = new Point(1024, 100, new double[] {30e-6, 20e-6, 25e-6}, false);
        assertEquals(20e-6, point.bestRoundTripSeconds(), 1e-15);
        assertEquals(10e-6, point.seconds(), 1e-15);
        assertEquals(1024 * 8 / 10e-6 / (1024 * 1024), point.mbps(), 1e-9);
    }

    @Test
    void aOneWayPointIsTheWholeCall() {
        Point point = new Point(1024, 100, new double[] {20e-6}, true);
        assertEquals(20e-6, point.seconds(), 1e-15);
    }

    @Test
    void writesNetPipesNpOutColumns() {
        Point point = new Point(8, 10, new double[] {4e-6}, false);
        // bytes %8d, Mbps %f (2^20 bits), seconds %.8f: what NetPIPE users' plot scripts read
        assertEquals("       8 30.517578 0.00000200", point.npOutLine());
    }

    @Test
    void theTrialsAreCopied() {
        double[] trials = {4e-6};
        Point point = new Point(8, 10, trials, false);
        trials[0] = 1;
        assertEquals(2e-6, point.seconds(), 1e-15);
    }

    @Test
    void refusesAPointWithoutTrials() {
        assertThrows(IllegalArgumentException.class, () -> new Point(8, 10, new double[0], false));
        assertThrows(IllegalArgumentException.class, () -> new Point(8, 0, new double[] {1}, false));
    }
}
