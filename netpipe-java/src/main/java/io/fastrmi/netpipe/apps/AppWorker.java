package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;

/**
 * One worker of a run: exports the application's worker object, joins the coordinator, does its
 * share (calling the other workers), hands in its part and exits.
 *
 * <p>Usage: {@code AppWorker HOST PORT APP SIZE [--host ADDRESS]}: the coordinator's registry, the
 * application and size; {@code --host} names the address this worker's stub carries.
 */
public final class AppWorker {

    private AppWorker() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 && !(args.length == 6 && args[4].equals("--host"))) {
            System.err.println("usage: AppWorker HOST PORT APP SIZE [--host ADDRESS]");
            System.exit(2);
        }
        if (args.length == 6) {
            System.setProperty("java.rmi.server.hostname", args[5]);
        }
        try {
            Registry registry = LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]));
            ParallelApp app = Apps.of(args[2], args[3]);
            Remote self = app.newWorkerObject();
            Remote stub = UnicastRemoteObject.exportObject(self, 0);
            Coordinator coordinator = (Coordinator) registry.lookup(Coordinator.NAME);
            Coordinator.Peers peers = coordinator.join(stub);
            CommClock clock = new CommClock();
            Serializable part = app.work(peers, self, registry, clock);
            coordinator.done(peers.rank(), part, clock.times());
        } catch (Exception | Error e) {
            // The exported worker object keeps RMI's threads, and so this JVM, alive: a failed
            // worker says so and exits, rather than leave the run to its time limit.
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }
}
