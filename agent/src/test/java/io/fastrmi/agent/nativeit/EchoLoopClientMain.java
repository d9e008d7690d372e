package io.fastrmi.agent.nativeit;

import io.fastrmi.sample.SampleServer;
import io.fastrmi.sample.SampleService;
import java.rmi.registry.LocateRegistry;
import java.util.Arrays;

/**
 * A client that echoes arrays of doubles through the sample service: {@code HOST PORT BYTES CALLS}
 * makes {@code CALLS} echoes of {@code BYTES} bytes each (a negative count: until killed), checks
 * every answer, prints {@code ECHOING} once the first answer came and {@code ECHOED n} at the end,
 * then exits. Tests kill it in the middle of a transfer, or let it run a short life to the end.
 */
public final class EchoLoopClientMain {

    private EchoLoopClientMain() {
    }

    public static void main(String[] args) throws Exception {
        SampleService service = (SampleService) LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]))
                .lookup(SampleServer.NAME);
        double[] values = new double[Math.max(1, Integer.parseInt(args[2]) / Double.BYTES)];
        for (int i = 0; i < values.length; i++) {
            values[i] = i;
        }
        long calls = Long.parseLong(args[3]);
        long n = 0;
        while (calls < 0 || n < calls) {
            values[0] = n;
            double[] answer = service.echo(values);
            if (!Arrays.equals(values, answer)) {
                System.out.println("WRONG answer to echo " + n);
                System.exit(2);
            }
            if (n++ == 0) {
                System.out.println("ECHOING");
            }
        }
        System.out.println("ECHOED " + n);
        System.exit(0);
    }
}
