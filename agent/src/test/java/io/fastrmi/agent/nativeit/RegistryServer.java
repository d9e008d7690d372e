package io.fastrmi.agent.nativeit;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.rmi.Remote;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;

/** What the test mains' servers share: an object exported and bound in a registry of its own. */
final class RegistryServer {

    private RegistryServer() {
    }

    /**
     * Exports {@code impl}, binds its stub as {@code name} in a registry on a free port, prints
     * {@code READY port=P}, and exits once standard input ends.
     */
    static void serve(String name, Remote impl) throws Exception {
        Remote stub = UnicastRemoteObject.exportObject(impl, 0);
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        LocateRegistry.createRegistry(port).rebind(name, stub);
        System.out.println("READY port=" + port);
        new BufferedReader(new InputStreamReader(System.in)).readLine();
        System.exit(0);
    }
}
