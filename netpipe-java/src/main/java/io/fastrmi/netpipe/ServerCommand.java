package io.fastrmi.netpipe;

import io.fastrmi.netpipe.bench.BenchServer;
import io.fastrmi.netpipe.dirmi.DirmiPeer;
import io.fastrmi.netpipe.grpc.GrpcPeer;
import io.fastrmi.netpipe.np.SocketEchoServer;
import java.net.ServerSocket;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "server",
        description = "Serve the socket echo or the RMI service; prints READY <port>, then runs until killed.")
final class ServerCommand implements Callable<Integer> {

    @Mixin
    HelpOption help;

    @Option(names = "--mode", required = true, description = "socket or rmi")
    ServerMode mode;

    @Option(names = {"-P", "--port"}, description = "port to listen on (0: a free one; default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--host", description = "the address this server's RMI stubs name (java.rmi.server.hostname)")
    String host;

    @Override
    public Integer call() throws Exception {
        if (host != null) {
            System.setProperty("java.rmi.server.hostname", host);
        }
        if (mode == ServerMode.GRPC) {
            io.grpc.Server server = GrpcPeer.serve(port);
            System.out.println("READY " + server.getPort());
            System.out.flush();
            server.awaitTermination();
            return 0;
        }
        if (mode == ServerMode.RMI) {
            System.out.println("READY " + BenchServer.start(port));
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
            return 0;
        }
        try (ServerSocket listener = new ServerSocket(port)) {
            if (mode == ServerMode.DIRMI) {
                try (var env = DirmiPeer.serve(listener)) {
                    System.out.println("READY " + listener.getLocalPort());
                    System.out.flush();
                    Thread.sleep(Long.MAX_VALUE);
                }
                return 0;
            }
            System.out.println("READY " + listener.getLocalPort());
            System.out.flush();
            SocketEchoServer.serve(listener);
        }
        return 0;
    }
}
