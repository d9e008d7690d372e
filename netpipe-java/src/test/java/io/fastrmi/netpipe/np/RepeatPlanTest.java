package io.fastrmi.netpipe.np;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class RepeatPlanTest {

    private final RepeatPlan plan = new RepeatPlan(0.25, 3, 1_000_000);

    @Test
    void aimsAtTheTrialTimeFromThePreviousRoundTrip() {
        assertEquals(25_000, plan.repeats(64, 64, 10e-6));
    }

    @Test
    void scalesThePredictionByTheGrowthInSize() {
        assertEquals(12_500, plan.repeats(128, 64, 10e-6));
        assertEquals(25_000, plan.repeats(61, 64, 10e-6), "a smaller size is not predicted faster");
    }

    @Test
    void staysWithinItsBounds() {
        assertEquals(3, plan.repeats(1024, 1024, 2.0));
        assertEquals(1_000_000, plan.repeats(1, 1, 1e-9));
        assertEquals(1_000_000, plan.repeats(1, 1, 0), "no previous time: as many as allowed");
    }

    @Test
    void refusesAPlanThatCannotBeKept() {
        assertThrows(IllegalArgumentException.class, () -> new RepeatPlan(0, 3, 10));
        assertThrows(IllegalArgumentException.class, () -> new RepeatPlan(0.25, 0, 10));
        assertThrows(IllegalArgumentException.class, () -> new RepeatPlan(0.25, 11, 10));
    }
}
