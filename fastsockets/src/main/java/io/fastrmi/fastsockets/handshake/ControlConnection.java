package io.fastrmi.fastsockets.handshake;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The TCP connection a negotiation runs on, by its two ends: where the peer is reached (a UCX
 * listener's IP is never taken from the peer) and whose socket the peer's end is (the kernel says,
 * for shared memory).
 */
public record ControlConnection(InetSocketAddress local, InetSocketAddress remote) {

    public static ControlConnection of(Socket socket) {
        return new ControlConnection(new InetSocketAddress(socket.getLocalAddress(), socket.getLocalPort()),
                new InetSocketAddress(socket.getInetAddress(), socket.getPort()));
    }

    public static ControlConnection of(InetAddress local, int localPort, InetAddress remote, int remotePort) {
        return new ControlConnection(new InetSocketAddress(local, localPort), new InetSocketAddress(remote, remotePort));
    }

    InetAddress peer() {
        return remote.getAddress();
    }
}
