package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** Which stream's data comes first after a stream's waits: {@link ArrivalOrder} and {@link FirstArrival}. */
class FirstArrivalTest {

    private final Object caller = new Object();
    private final Object handler = new Object();

    @Test
    void theFirstArrivalAfterAWaitBeganIsFound() {
        ArrivalOrder order = new ArrivalOrder();
        assertEquals(-1, order.firstSince(order.count()), "nothing came yet");
        long since = order.count();
        order.arrived(handler, 100);
        order.arrived(caller, 200);
        int slot = order.firstSince(since);
        assertSame(handler, order.streamAt(slot));
        assertEquals(100, order.nanosAt(slot));
        assertSame(caller, order.streamAt(order.firstSince(since + 1)));
    }

    @Test
    void tooManyArrivalsSinceAreUnknownNotWrong() {
        ArrivalOrder order = new ArrivalOrder();
        long since = order.count();
        for (int i = 0; i <= ArrivalOrder.KEPT; i++) {
            order.arrived(i == 0 ? handler : caller, i);
        }
        assertEquals(-1, order.firstSince(since), "the first of them was overwritten");
        assertEquals((int) ((since + 1) % ArrivalOrder.KEPT), order.firstSince(since + 1));
    }

    @Test
    void aGuessIsActedOnOnlyAfterItHeldSeveralTimesInARow() {
        FirstArrival first = new FirstArrival();
        for (int i = 1; i < FirstArrival.CONFIDENT; i++) {
            first.observe(handler, 40_000);
            assertNull(first.confident(), "after " + i + " observation(s)");
        }
        first.observe(handler, 40_000);
        assertSame(handler, first.confident());
        first.observe(handler, 80_000);
        assertEquals(50_000, first.averageNanos(), "a moving average of the last waits");
    }

    @Test
    void oneOtherArrivalOrAnUnknownOneStartsOver() {
        FirstArrival first = new FirstArrival();
        for (int i = 0; i < FirstArrival.CONFIDENT; i++) {
            first.observe(handler, 10_000);
        }
        first.observe(caller, 5_000); // many clients: whoever comes first changes every time
        assertNull(first.confident());
        assertEquals(5_000, first.averageNanos());
        for (int i = 0; i < FirstArrival.CONFIDENT; i++) {
            first.observe(caller, 5_000);
        }
        first.observe(null, 0);
        assertNull(first.confident());
    }
}
