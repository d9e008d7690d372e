package io.fastrmi.agent.nativeit;

import io.fastrmi.sample.SampleServer;
import io.fastrmi.sample.SampleService;
import java.rmi.registry.LocateRegistry;

/**
 * One client of a server's life: looks the sample service up, makes one call, prints {@code ANSWER n}
 * with what {@code add(n, 1)} returned, and exits. Usage: {@code HOST PORT N}.
 */
public final class ChurnClientMain {

    private ChurnClientMain() {
    }

    public static void main(String[] args) throws Exception {
        SampleService service = (SampleService) LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]))
                .lookup(SampleServer.NAME);
        int n = Integer.parseInt(args[2]);
        System.out.println("ANSWER " + service.add(n, 1));
        System.exit(0);
    }
}
