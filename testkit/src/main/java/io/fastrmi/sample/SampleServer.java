package io.fastrmi.sample;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.ExportException;
import java.rmi.server.UnicastRemoteObject;
import java.util.regex.Pattern;

/**
 * Runs the sample service: a registry on a free port (or {@code --port P}) with the service bound as
 * {@value #NAME}, then prints {@code READY port=P}. It exits on {@code quit} or end of standard input,
 * or on SIGTERM.
 */
public final class SampleServer {

    public static final String NAME = "sample";
    public static final Pattern READY = Pattern.compile("^READY port=(\\d+)$");

    private SampleServer() {
    }

    public static void main(String[] args) throws Exception {
        int requested = args.length == 2 && args[0].equals("--port") ? Integer.parseInt(args[1]) : 0;
        SampleServiceImpl impl = new SampleServiceImpl();
        SampleService stub = (SampleService) UnicastRemoteObject.exportObject(impl, 0);
        Registry registry = null;
        int port = requested;
        // A port that was free a moment ago may be taken by a parallel run: pick another and retry.
        for (int attempt = 0; registry == null; attempt++) {
            if (requested == 0) {
                port = freePort();
            }
            try {
                registry = LocateRegistry.createRegistry(port);
            } catch (ExportException e) {
                if (requested != 0 || attempt >= 20) {
                    throw e;
                }
            }
        }
        registry.rebind(NAME, stub);
        System.out.println("READY port=" + port);
        System.out.flush();

        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = stdin.readLine()) != null && !line.trim().equals("quit")) {
            // Only "quit" (or end of input) means something.
        }
        System.exit(0);
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }
}
