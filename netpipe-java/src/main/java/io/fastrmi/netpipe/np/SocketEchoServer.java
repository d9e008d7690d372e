package io.fastrmi.netpipe.np;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The socket mode's server: for each connection, reads a point's header (size, repeats, one-way) and
 * echoes that many messages (or takes them and answers once). A size of {@link #END} ends the
 * connection; a size out of bounds closes it, named on stderr.
 */
public final class SocketEchoServer {

    static final int END = -1;
    static final byte ONE_WAY_DONE = 'd';
    /** The largest message a client may announce (NetPIPE's sizes stop at 8 MiB by default). */
    static final int MAX_SIZE = 64 * 1024 * 1024;

    private SocketEchoServer() {
    }

    /** Accepts connections until the process ends, one thread each. */
    public static void serve(ServerSocket listener) throws IOException {
        while (true) {
            Socket socket = listener.accept();
            Thread thread = new Thread(() -> echo(socket), "netpipe-echo " + socket.getRemoteSocketAddress());
            thread.setDaemon(true);
            thread.start();
        }
    }

    private static void echo(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 64 * 1024));
            byte[] buffer = new byte[0];
            while (true) {
                int size = in.readInt();
                int repeats = in.readInt();
                boolean oneWay = in.readBoolean();
                if (size == END) {
                    return;
                }
                if (size < 0 || size > MAX_SIZE || repeats < 0) {
                    System.err.println("netpipe server: closing " + socket.getRemoteSocketAddress() + ": a header of size "
                            + size + " and " + repeats + " repeats is out of bounds (size 0.." + MAX_SIZE + ")");
                    return;
                }
                if (buffer.length != size) {
                    buffer = new byte[size];
                }
                for (int i = 0; i < repeats; i++) {
                    in.readFully(buffer);
                    if (!oneWay) {
                        out.write(buffer);
                        out.flush();
                    }
                }
                if (oneWay) {
                    out.writeByte(ONE_WAY_DONE);
                    out.flush();
                }
            }
        } catch (EOFException e) {
            // the client went away between points
        } catch (IOException e) {
            System.err.println("netpipe server: " + socket.getRemoteSocketAddress() + ": " + e);
        }
    }
}
