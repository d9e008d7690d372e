package io.fastrmi.netpipe.bench.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SerialKernelTest {

    @Test
    void aPacedKernelWorksItsThinkTimeBeforeEveryCall() throws Exception {
        long think = 300_000;
        List<Long> callTimes = new ArrayList<>();
        SerialKernel<Long> kernel = new SerialKernel<>("paced", n -> n, think, i -> {
            callTimes.add(System.nanoTime());
            return (long) i;
        }, (i, result) -> assertEquals(i, result.intValue()));

        long[] nanos = kernel.run(3, 10);

        assertEquals(10, nanos.length);
        assertEquals(13, callTimes.size());
        for (int i = 1; i < callTimes.size(); i++) {
            assertTrue(callTimes.get(i) - callTimes.get(i - 1) >= think, "call " + i + " came before its think time");
        }
    }
}
