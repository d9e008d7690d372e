package io.fastrmi.agent.nativeit;

import io.fastrmi.sample.SampleServer;
import io.fastrmi.sample.SampleService;
import java.rmi.registry.LocateRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * Opens N connections to the sample server (N concurrent calls, each on a connection of its own,
 * which RMI then keeps open for reuse), prints {@code IDLE}, and stays idle until "quit" on stdin.
 */
public final class IdleClientMain {

    private IdleClientMain() {
    }

    public static void main(String[] args) throws Exception {
        SampleService service = (SampleService) LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]))
                .lookup(SampleServer.NAME);
        int connections = Integer.parseInt(args[2]);
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Thread caller = new Thread(() -> {
                try {
                    service.sleep(1000);
                } catch (java.rmi.RemoteException e) {
                    throw new IllegalStateException(e);
                }
            });
            caller.start();
            callers.add(caller);
        }
        for (Thread caller : callers) {
            caller.join();
        }
        System.out.println("IDLE");
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
        System.exit(0);
    }
}
