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
 * reads an object with the JDK's streams; {@code rmi} exports a registry and takes it down;
 * {@code rmi-and-serialize} does both, says {@code READY} and waits for a line on its input (an
 * agent is attached meanwhile). Each prints {@code DONE} last.
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
