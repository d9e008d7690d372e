package io.fastrmi.agent.nativeit;

import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.registry.LocateRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * OpenJDK's {@code HandshakeTimeout} test: a lookup on a port whose server accepts connections and
 * never answers. With {@code args[0]} = "main" the handshake timeout ({@code args[1]} ms) is set here,
 * in main, as that test does; otherwise it comes from the command line. Prints
 * {@code FAILED <exception> / <cause> ... after <ms>} or {@code RETURNED}.
 */
public final class HandshakeTimeoutMain {

    private HandshakeTimeoutMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("main")) {
            System.setProperty("sun.rmi.transport.tcp.handshakeTimeout", args[1]);
        }
        ServerSocket silent = new ServerSocket(0);
        List<Socket> held = new ArrayList<>();
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    held.add(silent.accept()); // held open, never read or written
                }
            } catch (Exception e) {
                // closed at exit
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        long start = System.nanoTime();
        try {
            LocateRegistry.getRegistry("127.0.0.1", silent.getLocalPort()).lookup("app");
            System.out.println("RETURNED");
        } catch (Exception e) {
            Outcomes.printFailure("FAILED", e, start);
        }
        System.exit(0);
    }
}
