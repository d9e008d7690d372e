package io.fastrmi.netpipe.np;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.Arrays;

/**
 * NetPIPE over a {@link java.net.Socket} (under the agent with {@code scope = jvm}, over FastRMI's
 * sockets): each point starts with a header (size, repeats, one-way), then the client sends the
 * message and the {@link SocketEchoServer} sends it back; one-way, it sends every message and the
 * server answers once, with one byte, after the last.
 */
public final class SocketExchange implements Exchange {

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final boolean oneWay;
    private byte[] message = new byte[0];
    private byte[] reply = new byte[0];

    public SocketExchange(String host, int port, boolean oneWay) throws IOException {
        this.socket = new Socket(host, port);
        socket.setTcpNoDelay(true);
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 64 * 1024));
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024));
        this.oneWay = oneWay;
    }

    @Override
    public String describe() {
        return oneWay ? "socket one-way" : "socket";
    }

    @Override
    public boolean oneWay() {
        return oneWay;
    }

    @Override
    public int bytesFor(int size) {
        return size;
    }

    @Override
    public long run(int size, int repeats) throws IOException {
        if (message.length != size) {
            message = Messages.bytes(size);
            reply = new byte[size];
        }
        out.writeInt(size);
        out.writeInt(repeats);
        out.writeBoolean(oneWay);
        out.flush();
        long start = System.nanoTime();
        for (int i = 0; i < repeats; i++) {
            out.write(message);
            out.flush();
            if (!oneWay) {
                in.readFully(reply);
            }
        }
        if (oneWay && in.readByte() != SocketEchoServer.ONE_WAY_DONE) {
            throw new IOException("the server's answer to " + repeats + " one-way messages was not its done byte");
        }
        long elapsed = System.nanoTime() - start;
        if (!oneWay && !Arrays.equals(message, reply)) {
            throw new IOException("a " + size + "-byte message came back changed");
        }
        return elapsed;
    }

    @Override
    public void close() throws IOException {
        try {
            out.writeInt(SocketEchoServer.END);
            out.writeInt(0);
            out.writeBoolean(false);
            out.flush();
        } finally {
            socket.close();
        }
    }
}
