package io.fastrmi.agent.nativeit;

import io.fastrmi.sample.SampleServer;
import io.fastrmi.sample.SampleService;
import java.rmi.registry.LocateRegistry;

/**
 * Calls the sample server's {@code ping()} {@code args[2]} times back to back, prints {@code
 * PAUSED}, then calls it {@code args[3]} times with {@code args[4]} ms asleep before each, and
 * prints {@code DONE}: a job's run of calls, then its calls after think time.
 */
public final class PausedCallsMain {

    private PausedCallsMain() {
    }

    public static void main(String[] args) throws Exception {
        SampleService service = (SampleService) LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]))
                .lookup(SampleServer.NAME);
        int backToBack = Integer.parseInt(args[2]);
        int paused = Integer.parseInt(args[3]);
        long pauseMillis = Long.parseLong(args[4]);
        for (int i = 0; i < backToBack; i++) {
            service.ping();
        }
        System.out.println("PAUSED");
        for (int i = 0; i < paused; i++) {
            Thread.sleep(pauseMillis);
            service.ping();
        }
        System.out.println("DONE");
        System.exit(0);
    }
}
