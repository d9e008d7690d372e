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
 * reads an object with the JDK's streams; {@code rmi} exports a registry and takes it down. Each
 * prints {@code DONE} last.
 */
public final class StartupMain {

    private StartupMain() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "hello" -> System.out.println("hello");
            case "serialize" -> {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                    out.writeObject("a string");
                }
                try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
                    System.out.println("read " + in.readObject());
                }
            }
            case "rmi" -> {
                Registry registry = LocateRegistry.createRegistry(0);
                UnicastRemoteObject.unexportObject(registry, true);
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.out.println("DONE");
    }
}
