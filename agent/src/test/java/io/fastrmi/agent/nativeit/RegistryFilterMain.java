package io.fastrmi.agent.nativeit;

import java.io.Serializable;
import java.net.ServerSocket;
import java.rmi.Remote;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;

/**
 * OpenJDK's {@code RegistryFilterTest} in one JVM: a registry whose serial filter
 * ({@code -Dsun.rmi.registry.registryFilter=maxarray=10}) rejects what it reads, then a bind of an
 * object holding an array of {@code args[0]} bytes. The registry stops reading in the middle of the
 * argument; the bind must fail as stock RMI's does, never wait for the rest to be read. Prints
 * {@code REJECTED <exception> / <cause> ... after <ms>} or {@code BOUND}.
 */
public final class RegistryFilterMain {

    private RegistryFilterMain() {
    }

    /** Sent by value (a Remote that is not exported), so the registry deserializes its array. */
    static final class Holder implements Remote, Serializable {
        private static final long serialVersionUID = 1L;
        final byte[] data;

        Holder(int size) {
            data = new byte[size];
        }
    }

    public static void main(String[] args) throws Exception {
        int size = Integer.parseInt(args[0]);
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        LocateRegistry.createRegistry(port);
        Registry registry = LocateRegistry.getRegistry("127.0.0.1", port);
        registry.list(); // the connection is up: what follows times only the bind
        long start = System.nanoTime();
        try {
            registry.bind("holder", new Holder(size));
            System.out.println("BOUND");
        } catch (Exception e) {
            Outcomes.printFailure("REJECTED", e, start);
        }
        System.exit(0);
    }
}
