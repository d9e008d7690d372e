package io.fastrmi.agent.nativeit;

import io.fastrmi.sample.SampleServer;
import io.fastrmi.sample.SampleService;
import java.rmi.registry.LocateRegistry;
import java.util.Arrays;

/**
 * A client that echoes arrays of doubles through the sample service: {@code HOST PORT BYTES CALLS
 * [SECONDS]} makes {@code CALLS} echoes of {@code BYTES} bytes each (a negative count: until killed,
 * or until {@code SECONDS} have passed since the first answer when given), checks
 * every answer, prints {@code ECHOING} once the first answer came, {@code AT n} after every
 * {@value #EVERY}th echo of an endless loop, and at the end the mean time of
 * the echoes after the first ({@code MEAN_MICROS m}, when there were any) and {@code ECHOED n}, then
 * exits. Tests kill it in the middle of a transfer, or let it run a short life to the end.
 */
public final class EchoLoopClientMain {

    static final int EVERY = 1024;

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
        long forNanos = args.length > 4 ? Long.parseLong(args[4]) * 1_000_000_000L : 0;
        long n = 0;
        long afterFirst = 0;
        while ((calls < 0 || n < calls) && (forNanos == 0 || n == 0 || System.nanoTime() - afterFirst < forNanos)) {
            values[0] = n;
            double[] answer = service.echo(values);
            if (!Arrays.equals(values, answer)) {
                System.out.println("WRONG answer to echo " + n);
                System.exit(2);
            }
            if (calls < 0 && forNanos == 0 && n % EVERY == EVERY - 1) {
                System.out.println("AT " + (n + 1));
            }
            if (n++ == 0) {
                System.out.println("ECHOING");
                afterFirst = System.nanoTime();
            }
        }
        if (n > 1) {
            System.out.println("MEAN_MICROS " + (System.nanoTime() - afterFirst) / 1000 / (n - 1));
        }
        System.out.println("ECHOED " + n);
        System.exit(0);
    }
}
