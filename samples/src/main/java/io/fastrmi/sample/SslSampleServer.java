package io.fastrmi.sample;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;

/**
 * The sample service behind the application's own socket factories: the registry and the service are
 * exported with the SSL factories ({@code --ssl}, the default), a custom plain pair ({@code --custom}),
 * or through a global {@link java.rmi.server.RMISocketFactory} set first ({@code --global}). Otherwise
 * as {@link SampleServer}: a registry on a free port (or {@code --port P}) with the service bound as
 * {@value SampleServer#NAME}, then {@code READY port=P}; it exits on {@code quit} or end of input.
 *
 * <p>Usage: {@code SslSampleServer [--ssl|--custom|--global] [--port P]}. SSL needs
 * {@code javax.net.ssl.keyStore} (and, for the client's callback, {@code javax.net.ssl.trustStore}).
 */
public final class SslSampleServer {

    private SslSampleServer() {
    }

    public static void main(String[] args) throws Exception {
        AppSocketFactories.Mode mode = AppSocketFactories.Mode.SSL;
        int requested = 0;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                requested = Integer.parseInt(args[++i]);
            } else {
                mode = AppSocketFactories.Mode.ofFlag(args[i]);
            }
        }
        mode.installGlobal();
        RMIClientSocketFactory csf = mode.clientFactory();
        RMIServerSocketFactory ssf = mode.serverFactory();

        SampleServiceImpl impl = new SampleServiceImpl();
        SampleService stub = (SampleService) (csf == null ? UnicastRemoteObject.exportObject(impl, 0)
                : UnicastRemoteObject.exportObject(impl, 0, csf, ssf));
        ServerMains.RegistryOnPort registry = ServerMains.registry(requested,
                port -> csf == null ? LocateRegistry.createRegistry(port) : LocateRegistry.createRegistry(port, csf, ssf));
        registry.registry().rebind(SampleServer.NAME, stub);
        ServerMains.readyUntilQuit(registry.port());
        System.exit(0);
    }
}
