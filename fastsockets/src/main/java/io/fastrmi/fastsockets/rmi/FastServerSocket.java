package io.fastrmi.fastsockets.rmi;

import io.fastrmi.fastsockets.jvm.JvmScope;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/** RMI's server socket under FastRMI: it accepts {@link FastSocket}s, and nothing more happens in accept. */
final class FastServerSocket extends ServerSocket {

    static FastServerSocket create(int port) throws IOException {
        java.net.SocketImpl platform = JvmScope.platformImplForRmi(true);
        return platform == null ? new FastServerSocket(port) : new FastServerSocket(platform, port);
    }

    private FastServerSocket(int port) throws IOException {
        super(port);
    }

    /** Under scope = jvm: the JDK's implementation, so RMI's endpoints are never registered as listeners. */
    private FastServerSocket(java.net.SocketImpl platform, int port) throws IOException {
        super(platform);
        try {
            bind(new java.net.InetSocketAddress(port), 50);
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    @Override
    public Socket accept() throws IOException {
        if (isClosed()) {
            throw new java.net.SocketException("Socket is closed");
        }
        FastSocket socket = FastSocket.create(true);
        implAccept(socket);
        return socket;
    }
}
