package io.fastrmi.agent.nativeit;

import io.fastrmi.sample.SampleServer;
import io.fastrmi.sample.SampleService;
import java.rmi.registry.LocateRegistry;

/**
 * Calls {@code sleep(60 s)} on the sample server and prints how the call ended: {@code CALLING}
 * first, then {@code RETURNED} or {@code FAILED <exception> after <ms>}.
 */
public final class SleepClientMain {

    private SleepClientMain() {
    }

    public static void main(String[] args) throws Exception {
        SampleService service = (SampleService) LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]))
                .lookup(SampleServer.NAME);
        service.ping();
        System.out.println("CALLING");
        long start = System.nanoTime();
        try {
            service.sleep(60_000);
            System.out.println("RETURNED");
        } catch (Exception e) {
            System.out.println("FAILED " + e.getClass().getName() + " after " + (System.nanoTime() - start) / 1_000_000 + " ms");
        }
        System.exit(0);
    }
}
