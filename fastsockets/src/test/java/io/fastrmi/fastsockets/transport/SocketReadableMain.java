package io.fastrmi.fastsockets.transport;

import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Looks at the client's end of a loopback connection without waiting ({@code
 * fastrmi_socket_readable}) and prints {@code READABLE case answer}: idle, with data sent to it,
 * after that data was read, after the peer closed, and at a descriptor that is not open (the
 * answer then is the error's message). Usage: {@code SocketReadableMain LIBRARY}; needs {@code
 * --add-opens java.base/java.net=ALL-UNNAMED} and {@code java.io} too, for the descriptor.
 */
public final class SocketReadableMain {

    private SocketReadableMain() {
    }

    public static void main(String[] args) throws Exception {
        NativeLibrary library = LibraryMains.load(args[0], SocketReadableMain.class);
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                Socket client = new Socket(server.getInetAddress(), server.getLocalPort())) {
            int fd = SocketDescriptors.of(client);
            System.out.println("READABLE descriptor " + (fd >= 0));
            try (Socket accepted = server.accept()) {
                System.out.println("READABLE idle " + library.socketReadable(fd));
                accepted.getOutputStream().write(7);
                Thread.sleep(100);
                System.out.println("READABLE data " + library.socketReadable(fd));
                client.getInputStream().read();
                System.out.println("READABLE read " + library.socketReadable(fd));
            }
            Thread.sleep(100);
            System.out.println("READABLE peer-closed " + library.socketReadable(fd));
        }
        try {
            System.out.println("READABLE not-open " + library.socketReadable(Integer.MAX_VALUE));
        } catch (IOException e) {
            System.out.println("READABLE not-open " + e.getMessage());
        }
    }
}
