package io.fastrmi.netpipe;

import io.fastrmi.netpipe.dirmi.DirmiPeer;
import io.fastrmi.netpipe.grpc.GrpcPeer;
import io.fastrmi.netpipe.np.RmiCalls;
import java.net.InetAddress;
import picocli.CommandLine.Option;

/** Where the server is. */
final class PeerOptions {
    @Option(names = {"-h", "--host"}, required = true, description = "the server's host")
    String host;

    @Option(names = {"-P", "--port"}, required = true, description = "the server's port (its READY line)")
    int port;

    @Option(names = "--peer", description = "rmi (Java RMI; under the agent, FastRMI), dirmi (Cojen Dirmi) or grpc (gRPC-java) (default ${DEFAULT-VALUE})")
    Protocol protocol = Protocol.RMI;

    /** The calls to the server; close them after. */
    AutoCloseableCalls connect() throws Exception {
        String address = InetAddress.getByName(host).getHostAddress();
        if (protocol == Protocol.GRPC) {
            GrpcPeer.GrpcCalls calls = GrpcPeer.connect(address, port);
            return new AutoCloseableCalls(calls, calls::close);
        }
        if (protocol == Protocol.DIRMI) {
            DirmiPeer.DirmiCalls calls = DirmiPeer.connect(address, port);
            return new AutoCloseableCalls(calls, calls::close);
        }
        RmiCalls calls = RmiCalls.connect(address, port);
        return new AutoCloseableCalls(calls, calls::close);
    }
}
