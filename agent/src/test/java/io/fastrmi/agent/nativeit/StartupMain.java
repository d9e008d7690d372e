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
 * {@code READY} and waits for a line on its input (an agent is attached meanwhile). Each prints
 * {@code DONE} last.
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

    /**
     * The agent loads its library on a daemon thread that RMI's first socket factory starts; a JVM
     * whose life ends first exits without it (under a loaded test run it did), so wait for that
     * thread as a longer-lived JVM would have.
     */
    private static void awaitTransportsWarmed() throws InterruptedException {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals("fastrmi-transports")) {
                thread.join(60_000);
            }
        }
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
