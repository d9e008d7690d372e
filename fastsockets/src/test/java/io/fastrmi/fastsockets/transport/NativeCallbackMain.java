package io.fastrmi.fastsockets.transport;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A callback's turns between two JVMs over native streams, read through {@link NativeConnection}s:
 * the client's caller sends a call on one stream; the server calls back on a second before it
 * answers, and the client's handler thread answers the call back. Usage: {@code NativeCallbackMain
 * server|client LIBRARY TRANSPORT [PORT]}; the server prints {@code READY port=P}, the client
 * {@code CALLS n}, {@code CALLER-NUDGED n} and {@code HANDLER-NUDGED n} (the reads that nudged the
 * other side's reader) and {@code DONE}.
 */
public final class NativeCallbackMain {

    public static final int CALLS = 300;

    private NativeCallbackMain() {
    }

    public static void main(String[] args) throws Exception {
        boolean server = args[0].equals("server");
        NativeLibrary library = LibraryMains.load(args[1], NativeCallbackMain.class);
        try (NativeTransport transport = library.openTransport(TransportName.parse(args[2]), 50, WaitMode.ADAPTIVE)) {
            if (server) {
                serve(transport);
            } else {
                call(transport, Integer.parseInt(args[3]));
            }
        }
        System.out.println("DONE");
    }

    private static NativeConnection connection(NativeStream stream, Socket control) {
        return new NativeConnection(() -> 0, control, stream, "test", false);
    }

    /** Each message one send, as RMI's flush makes it. */
    private static DataOutputStream output(NativeConnection connection) {
        return new DataOutputStream(new java.io.BufferedOutputStream(connection.output()));
    }

    private static void serve(NativeTransport transport) throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 2, InetAddress.getLoopbackAddress())) {
            System.out.println("READY port=" + listener.getLocalPort());
            try (Socket callControl = listener.accept(); Socket backControl = listener.accept()) {
                NativeStream callStream = transport.openOver(callControl, 2);
                NativeStream backStream = transport.openOver(backControl, 4);
                NativeConnection call = connection(callStream, callControl);
                NativeConnection back = connection(backStream, backControl);
                DataInputStream calls = new DataInputStream(call.input());
                DataOutputStream replies = output(call);
                DataOutputStream callBacks = output(back);
                DataInputStream answers = new DataInputStream(back.input());
                for (int i = 0; i < CALLS; i++) {
                    callBacks.writeInt(calls.readInt() + 1);
                    callBacks.flush();
                    replies.writeInt(answers.readInt() + 1);
                    replies.flush();
                }
                callStream.close();
                backStream.close();
            }
        }
    }

    private static void call(NativeTransport transport, int port) throws Exception {
        try (Socket callControl = new Socket(InetAddress.getLoopbackAddress(), port);
                Socket backControl = new Socket(InetAddress.getLoopbackAddress(), port)) {
            NativeStream callStream = transport.openOver(callControl, 1);
            NativeStream backStream = transport.openOver(backControl, 3);
            NativeConnection caller = connection(callStream, callControl);
            NativeConnection handler = connection(backStream, backControl);
            Thread handling = new Thread(() -> {
                try {
                    DataInputStream in = new DataInputStream(handler.input());
                    DataOutputStream out = output(handler);
                    for (int i = 0; i < CALLS; i++) {
                        out.writeInt(in.readInt() + 1);
                        out.flush();
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            handling.start();
            DataOutputStream out = output(caller);
            DataInputStream in = new DataInputStream(caller.input());
            int right = 0;
            for (int i = 0; i < CALLS; i++) {
                out.writeInt(10 * i);
                out.flush();
                if (in.readInt() == 10 * i + 3) {
                    right++;
                }
            }
            handling.join();
            System.out.println("CALLS " + right);
            System.out.println("CALLER-NUDGED " + caller.nudgingReads());
            System.out.println("HANDLER-NUDGED " + handler.nudgingReads());
            callStream.close();
            backStream.close();
        }
    }
}
