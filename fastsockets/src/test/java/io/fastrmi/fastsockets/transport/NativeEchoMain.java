package io.fastrmi.fastsockets.transport;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;

/**
 * Two JVMs, one native stream, through the FFM binding: the server echoes what the client sends.
 * They pair over a TCP connection, as FastRMI's handshake will: each sends its context address and
 * stream id. Usage: {@code NativeEchoMain server|client LIBRARY TRANSPORT [PORT]} (TRANSPORT as a
 * config names it, "ofi:shm"); the server prints {@code READY port=P}, the client {@code ECHO n} per
 * size and {@code DONE}.
 */
public final class NativeEchoMain {

    public static final int[] SIZES = {1, 7, 4096, 65536, 262144 + 3, 1 << 20, 16 << 20};

    private NativeEchoMain() {
    }

    public static void main(String[] args) throws Exception {
        boolean server = args[0].equals("server");
        NativeLibrary library = LibraryMains.load(args[1], NativeEchoMain.class);
        try (NativeTransport transport = library.openTransport(TransportName.parse(args[2]), 50, WaitMode.ADAPTIVE)) {
            if (server) {
                try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                    System.out.println("READY port=" + listener.getLocalPort());
                    try (Socket control = listener.accept()) {
                        NativeStream stream = transport.openOver(control, 2);
                        echo(stream);
                        stream.close();
                    }
                }
            } else {
                try (Socket control = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(args[3]))) {
                    NativeStream stream = transport.openOver(control, 1);
                    for (int size : SIZES) {
                        byte[] sent = pattern(size);
                        // The echo comes back while we send: write from another thread (the windows
                        // are smaller than the biggest sizes, as a socket's buffers would be).
                        Thread writer = new Thread(() -> {
                            try {
                                stream.write(sent, 0, size);
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        });
                        writer.start();
                        byte[] received = new byte[size];
                        readFully(stream, received);
                        writer.join();
                        if (!Arrays.equals(sent, received)) {
                            throw new IllegalStateException("echo of " + size + " bytes differs");
                        }
                        System.out.println("ECHO " + size);
                    }
                    double[] doubles = new double[1 << 17];
                    Arrays.setAll(doubles, i -> i * 0.5 - 7);
                    echoArray(stream, doubles, 8L * 5, 8L * 100_000);
                    int[] ints = new int[1000];
                    Arrays.setAll(ints, i -> i * 31 - 500);
                    echoArray(stream, ints, 0, 4L * ints.length);
                    stream.shutdownOutput();
                    if (stream.read(new byte[1], 0, 1, 10_000) != -1) {
                        throw new IllegalStateException("no end of stream after shutdownOutput");
                    }
                    System.out.println("EOF");
                    stream.close();
                }
            }
        }
        System.out.println("DONE");
    }

    /** Echoes until the end of the stream, then ends its own side. */
    private static void echo(NativeStream stream) throws Exception {
        byte[] buffer = new byte[100_000];
        int n;
        while ((n = stream.read(buffer, 0, buffer.length, 0)) > 0) {
            stream.write(buffer, 0, n);
        }
        stream.shutdownOutput();
    }

    /**
     * A primitive array's bytes written straight from the array come back straight into another
     * array of its type at the same offset, its first read 3 bytes (the rest then starts inside an
     * element): the two arrays' ranges are the same.
     */
    private static void echoArray(NativeStream stream, Object array, long offset, long length) throws Exception {
        Thread writer = new Thread(() -> {
            try {
                stream.writeArray(array, offset, length);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        writer.start();
        Object received = java.lang.reflect.Array.newInstance(array.getClass().getComponentType(),
                java.lang.reflect.Array.getLength(array));
        long at = 0;
        while (at < length) {
            int n = stream.readArray(received, offset + at, at == 0 ? 3 : length - at, 30_000);
            if (n < 0) {
                throw new IllegalStateException("end of stream after " + at + " of " + length + " array bytes");
            }
            at += n;
        }
        writer.join();
        int size = array instanceof double[] ? 8 : 4;
        int from = (int) (offset / size);
        int to = (int) ((offset + length) / size);
        boolean same = array instanceof double[] d
                ? Arrays.equals(d, from, to, (double[]) received, from, to)
                : Arrays.equals((int[]) array, from, to, (int[]) received, from, to);
        if (!same) {
            throw new IllegalStateException("the echo of " + length + " bytes of a " + array.getClass().getSimpleName() + " differs");
        }
        System.out.println("ARRAY " + length);
    }

    private static void readFully(NativeStream stream, byte[] into) throws Exception {
        int at = 0;
        while (at < into.length) {
            int n = stream.read(into, at, into.length - at, 30_000);
            if (n < 0) {
                throw new IllegalStateException("end of stream after " + at + " of " + into.length + " bytes");
            }
            at += n;
        }
    }

    /** Bytes with no period, so that bytes landing at another offset never match by chance. */
    static byte[] pattern(int size) {
        byte[] bytes = new byte[size];
        new java.util.SplittableRandom(size).nextBytes(bytes);
        return bytes;
    }
}
