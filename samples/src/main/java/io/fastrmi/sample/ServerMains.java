package io.fastrmi.sample;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.rmi.RemoteException;
import java.rmi.registry.Registry;
import java.rmi.server.ExportException;

/** What the sample servers share: a registry on a free port, the READY line, waiting for "quit". */
final class ServerMains {

    private ServerMains() {
    }

    /** Makes a registry on a port, e.g. {@code LocateRegistry::createRegistry}. */
    @FunctionalInterface
    interface RegistryMaker {
        Registry create(int port) throws RemoteException;
    }

    record RegistryOnPort(Registry registry, int port) {
    }

    /** {@code --port P} from the arguments, or 0 for "any free port". */
    static int requestedPort(String[] args) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--port")) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return 0;
    }

    /**
     * A registry on {@code requested}, or on a free port when it is 0. A port that was free a moment
     * ago may be taken by a parallel run: then another is picked, up to 20 times.
     */
    static RegistryOnPort registry(int requested, RegistryMaker maker) throws IOException {
        for (int attempt = 0; ; attempt++) {
            int port = requested != 0 ? requested : freePort();
            try {
                return new RegistryOnPort(maker.create(port), port);
            } catch (ExportException e) {
                if (requested != 0 || attempt >= 20) {
                    throw e;
                }
            }
        }
    }

    /** Prints the readiness line, then returns once "quit" or the end of standard input comes. */
    static void readyUntilQuit(int port) throws IOException {
        System.out.println("READY port=" + port);
        System.out.flush();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = stdin.readLine()) != null && !line.trim().equals("quit")) {
            // Only "quit" (or end of input) means something.
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }
}
