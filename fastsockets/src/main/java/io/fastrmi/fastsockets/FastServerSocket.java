package io.fastrmi.fastsockets;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/** RMI's server socket under FastRMI: it accepts {@link FastSocket}s, and nothing more happens in accept. */
final class FastServerSocket extends ServerSocket {

    FastServerSocket(int port) throws IOException {
        super(port);
    }

    @Override
    public Socket accept() throws IOException {
        if (isClosed()) {
            throw new java.net.SocketException("Socket is closed");
        }
        FastSocket socket = new FastSocket(true);
        implAccept(socket);
        return socket;
    }
}
