package io.fastrmi.sample;

import java.rmi.registry.LocateRegistry;
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
        SampleServiceImpl impl = new SampleServiceImpl();
        SampleService stub = (SampleService) UnicastRemoteObject.exportObject(impl, 0);
        ServerMains.RegistryOnPort registry = ServerMains.registry(ServerMains.requestedPort(args),
                LocateRegistry::createRegistry);
        registry.registry().rebind(NAME, stub);
        ServerMains.readyUntilQuit(registry.port());
        System.exit(0);
    }
}
