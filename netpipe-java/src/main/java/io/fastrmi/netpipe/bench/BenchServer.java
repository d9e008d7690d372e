package io.fastrmi.netpipe.bench;

import io.fastrmi.netpipe.bench.kernels.BenchService;
import io.fastrmi.netpipe.bench.kernels.BenchServiceImpl;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.ExportException;
import java.rmi.server.UnicastRemoteObject;
import java.util.regex.Pattern;

/**
 * Serves {@link BenchService}: a registry on a free port (or {@code --port P}) with the service bound
 * as {@value BenchService#NAME}, then prints {@code READY <port>}; exits on {@code quit} or the end
 * of standard input (so its JFR recording is dumped), or on SIGTERM.
 *
 * <p>{@code --host ADDRESS} makes the server's stubs name that address (java.rmi.server.hostname),
 * for a server in a network namespace whose host name does not resolve to its own address. The
 * sockets still listen on every address: a socket factory of our own would bind one, but the agent
 * leaves connections through an application's socket factory plain.
 *
 * <p>Usage: {@code BenchServer [--port P] [--host ADDRESS]}
 */
public final class BenchServer {

    public static final Pattern READY = Pattern.compile("^READY (\\d+)$");

    /** Held here: an exported object only weakly reachable from RMI could be collected. */
    private static final BenchServiceImpl SERVICE = new BenchServiceImpl();

    private BenchServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = 0;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                usage();
            }
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--host" -> System.setProperty("java.rmi.server.hostname", args[i + 1]);
                default -> usage();
            }
        }
        System.out.println("READY " + start(port));
        System.out.flush();
        waitForQuit();
        System.exit(0);
    }

    /** Exports the service and binds it in a new registry on {@code port} (0: a free one); returns the registry's port. */
    public static int start(int port) throws IOException {
        BenchService stub = (BenchService) UnicastRemoteObject.exportObject(SERVICE, 0);
        RegistryOnPort registry = registry(port);
        registry.registry().rebind(BenchService.NAME, stub);
        return registry.port();
    }

    private static void usage() {
        System.err.println("usage: BenchServer [--port P] [--host ADDRESS]");
        System.exit(2);
    }

    private record RegistryOnPort(Registry registry, int port) {
    }

    /**
     * A registry on {@code requested}, or on a free port when it is 0: a port found free a moment ago
     * may be taken by a parallel run, so another is tried, up to 20 times.
     */
    private static RegistryOnPort registry(int requested) throws IOException {
        for (int attempt = 0; ; attempt++) {
            int port = requested != 0 ? requested : freePort();
            try {
                return new RegistryOnPort(LocateRegistry.createRegistry(port), port);
            } catch (ExportException e) {
                if (requested != 0 || attempt >= 20) {
                    throw e;
                }
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    private static void waitForQuit() throws IOException {
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = stdin.readLine()) != null && !line.trim().equals("quit")) {
            // Only "quit" (or the end of input) means something.
        }
    }
}
