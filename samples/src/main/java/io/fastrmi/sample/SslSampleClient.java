package io.fastrmi.sample;

import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.UnicastRemoteObject;

/**
 * The client of {@link SslSampleServer}: looks the service up through the registry with the same
 * socket factories, exports its callback with them too, prints the {@code CALL} transcript of
 * {@link SampleClient#transcript} and then {@code DONE}.
 *
 * <p>Usage: {@code SslSampleClient [--ssl|--custom|--global] host port}
 */
public final class SslSampleClient {

    private SslSampleClient() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && args.length != 3) {
            System.err.println("usage: SslSampleClient [--ssl|--custom|--global] host port");
            System.exit(2);
        }
        int at = args.length - 2;
        AppSocketFactories.Mode mode = at == 0 ? AppSocketFactories.Mode.SSL : AppSocketFactories.Mode.ofFlag(args[0]);
        mode.installGlobal();
        RMIClientSocketFactory csf = mode.clientFactory();
        RMIServerSocketFactory ssf = mode.serverFactory();

        String host = args[at];
        int port = Integer.parseInt(args[at + 1]);
        Registry registry = csf == null ? LocateRegistry.getRegistry(host, port) : LocateRegistry.getRegistry(host, port, csf);
        SampleService service = (SampleService) registry.lookup(SampleServer.NAME);
        SampleClient.CallbackImpl callback = new SampleClient.CallbackImpl();
        Callback callbackStub = (Callback) (csf == null ? UnicastRemoteObject.exportObject(callback, 0)
                : UnicastRemoteObject.exportObject(callback, 0, csf, ssf));
        try {
            for (String line : SampleClient.transcript(service, callbackStub)) {
                System.out.println(line);
            }
        } finally {
            UnicastRemoteObject.unexportObject(callback, true);
        }
        System.out.println(SampleClient.DONE);
        System.out.flush();
        System.exit(0);
    }
}
