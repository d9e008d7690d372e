package io.fastrmi.agent.nativeit;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;

/**
 * A JVM's whole life for {@code StartupIT}: {@code hello} only prints; {@code serialize} writes and
 * reads an object with the JDK's streams; {@code rmi} exports a registry, takes it down and waits
 * for the agent's warm-up thread; {@code rmi-and-serialize} exports a registry and serializes, says
 * {@code READY} and waits for a line on its input (an agent is attached meanwhile); {@code call}
 * binds an object's stub in a registry of its own, looks it up through a connection to itself and
 * calls it; {@code call-and-settle} does the same, then waits for the lean codec's warm-up thread and
 * for the JIT to settle; {@code event-types} uses no RMI and prints the FastRMI event types JFR has registered.
 * Each prints {@code DONE} last.
 */
public final class StartupMain {

    private StartupMain() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "hello" -> System.out.println("hello");
            case "serialize" -> serialize();
            case "rmi" -> {
                Registry registry = LocateRegistry.createRegistry(0);
                UnicastRemoteObject.unexportObject(registry, true);
                awaitTransportsWarmed();
            }
            case "call" -> call();
            case "call-and-settle" -> {
                call();
                awaitThread("fastrmi-lean-warm-up");
                awaitJitSettled();
            }
            case "event-types" -> System.out.println("EVENT_TYPES " + fastRmiEventTypes());
            case "rmi-and-serialize" -> {
                Registry registry = LocateRegistry.createRegistry(0);
                serialize();
                System.out.println("READY");
                new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
                serialize(); // through the classes as the agent left them
                UnicastRemoteObject.unexportObject(registry, true);
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.out.println("DONE");
    }

    /** The names of the FastRMI event types JFR knows, sorted; "not recording" before JFR starts. */
    private static String fastRmiEventTypes() {
        if (!jdk.jfr.FlightRecorder.isInitialized()) {
            return "not recording";
        }
        return jdk.jfr.FlightRecorder.getFlightRecorder().getEventTypes().stream().map(jdk.jfr.EventType::getName)
                .filter(name -> name.startsWith("fastrmi.")).sorted().toList().toString();
    }

    /**
     * The agent loads its library on a daemon thread that RMI's first socket factory starts; a JVM
     * whose life ends first exits without it (under a loaded test run it did), so wait for that
     * thread as a longer-lived JVM would have.
     */
    private static void awaitTransportsWarmed() throws InterruptedException {
        awaitThread("fastrmi-transports");
    }

    private static void awaitThread(String name) throws InterruptedException {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals(name)) {
                thread.join(60_000);
            }
        }
    }

    /** Until the JIT's total compilation time stays the same for a second (what it was asked to compile is compiled). */
    private static void awaitJitSettled() throws InterruptedException {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        long last = -1;
        int same = 0;
        for (int i = 0; i < 600 && same < 5; i++) {
            Thread.sleep(200);
            long now = jit.getTotalCompilationTime();
            same = now == last ? same + 1 : 0;
            last = now;
        }
    }

    /** The object {@code call} calls. */
    public interface Pinged extends java.rmi.Remote {
        int ping(int x) throws java.rmi.RemoteException;
    }

    private static final class Pinger implements Pinged {
        @Override
        public int ping(int x) {
            return x + 1;
        }
    }

    /** Held here: an exported object only weakly reachable from RMI could be collected. */
    private static final Pinger PINGER = new Pinger();

    /**
     * A JVM's first calls, as an application makes them: a stub bound (written) and looked up
     * (read, then made known to its server's DGC) through the registry, then called.
     */
    private static void call() throws Exception {
        java.rmi.Remote stub = UnicastRemoteObject.exportObject(PINGER, 0);
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        Registry registry = LocateRegistry.createRegistry(port);
        Registry remote = LocateRegistry.getRegistry("127.0.0.1", port);
        remote.rebind("pinged", stub);
        int answer = ((Pinged) remote.lookup("pinged")).ping(41);
        System.out.println("ANSWER " + answer);
        UnicastRemoteObject.unexportObject(registry, true);
        UnicastRemoteObject.unexportObject(PINGER, true);
    }

    private static void serialize() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject("a string");
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            System.out.println("read " + in.readObject());
        }
    }
}
