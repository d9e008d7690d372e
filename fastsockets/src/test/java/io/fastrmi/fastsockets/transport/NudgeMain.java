package io.fastrmi.fastsockets.transport;

import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/**
 * A callback's turns over two loopback TCP connections, as RMI makes them: a caller sends a
 * request on A and waits; a "server" (plain sockets, outside the group) answers it with a call
 * back on B; a handler reads the call back, replies on B; the server then replies on A, thinking
 * a while before each message it sends. The
 * caller's and the handler's inputs are {@link PollingInput}s of one group with the library's
 * real nudges, every wait blocking but for nudged spins (a budget with no spin). Prints
 * {@code CHECK name value} lines: the socket's descriptor, the rounds made with every byte right,
 * how often each side was nudged and found its data spinning then, and, the handler asleep
 * nudgeably, that its SO_TIMEOUT fires and a close from another thread ends its read. Usage:
 * {@code NudgeMain LIBRARY} (with java.net and java.io opened, as the agent opens them).
 */
public final class NudgeMain {

    static final int ROUNDS = 100;
    /**
     * The server's think time before each message it sends: far longer than a nudged spin, so each
     * side sleeps when the other nudges it, whatever the scheduler does meanwhile.
     */
    static final long THINK_MILLIS = 3;

    private NudgeMain() {
    }

    public static void main(String[] args) throws Exception {
        NativeLibrary library = LibraryMains.load(args[0], NudgeMain.class);
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket listener = new ServerSocket(0, 2, loopback);
                Socket callerSide = new Socket(loopback, listener.getLocalPort());
                Socket serverA = listener.accept();
                Socket handlerSide = new Socket(loopback, listener.getLocalPort());
                Socket serverB = listener.accept()) {
            Spinners group = new Spinners(() -> 1, 0);
            PollingInput caller = input(callerSide, library, group);
            PollingInput handler = input(handlerSide, library, group);
            print("socket-fd-found", SocketDescriptors.of(callerSide) >= 0);

            Thread server = thread("server", () -> {
                InputStream a = serverA.getInputStream();
                InputStream b = serverB.getInputStream();
                for (int round = 0; round < ROUNDS; round++) {
                    int request = a.read();
                    Thread.sleep(THINK_MILLIS);
                    serverB.getOutputStream().write(request);
                    int reply = b.read();
                    Thread.sleep(THINK_MILLIS);
                    serverA.getOutputStream().write(reply);
                }
            });
            Thread handlerThread = thread("handler", () -> {
                OutputStream out = handlerSide.getOutputStream();
                for (int round = 0; round < ROUNDS; round++) {
                    out.write(handler.read() + 1);
                }
            });
            OutputStream out = callerSide.getOutputStream();
            int right = 0;
            for (int round = 0; round < ROUNDS; round++) {
                out.write(round & 0x7f);
                if (caller.read() == (round & 0x7f) + 1) {
                    right++;
                }
            }
            server.join();
            handlerThread.join();
            print("rounds-right", right);
            long[] handlerCounts = handler.nudgeCounts();
            long[] callerCounts = caller.nudgeCounts();
            print("handler-nudged", handlerCounts[0]);
            print("handler-answered-nudged", handlerCounts[1]);
            print("caller-nudged", callerCounts[0]);
            print("caller-answered-nudged", callerCounts[1]);

            // The handler sleeps nudgeably now; its socket's SO_TIMEOUT holds as on any socket.
            handlerSide.setSoTimeout(200);
            try {
                handler.read();
                print("timed-out", false);
            } catch (SocketTimeoutException e) {
                print("timed-out", true);
            }
            serverB.getOutputStream().write(42);
            print("reads-after-a-timeout", handler.read() == 42);
            // A close from another thread ends the sleep (a close does not end a poll by itself).
            handlerSide.setSoTimeout(60_000);
            Thread closer = thread("closer", () -> {
                Thread.sleep(100);
                handlerSide.close();
            });
            try {
                handler.read();
                print("closed-while-asleep", false);
            } catch (SocketException e) {
                print("closed-while-asleep", true);
            }
            closer.join();
        }
    }

    /** A budget that may spin but gives no spin of its own: every wait blocks unless nudged to spin. */
    private static final WaitBudget NO_SPIN = new WaitBudget() {
        @Override
        public boolean maySpin() {
            return true;
        }

        @Override
        public long spinNanos() {
            return 0;
        }

        @Override
        public void learn(long waitedNanos, boolean answeredSpinning) {
        }
    };

    private static PollingInput input(Socket socket, NativeLibrary library, Spinners group) throws IOException {
        return new PollingInput(socket.getInputStream(), () -> NO_SPIN, group,
                new NudgeableSleep(library::openNudge, () -> SocketDescriptors.of(socket), () -> soTimeout(socket)));
    }

    private static int soTimeout(Socket socket) {
        try {
            return socket.getSoTimeout();
        } catch (SocketException e) {
            return 0; // closed: the read says so
        }
    }

    interface Body {
        void run() throws Exception;
    }

    private static Thread thread(String name, Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                throw new IllegalStateException(name + ": " + e, e);
            }
        }, name);
        t.start();
        return t;
    }

    private static void print(String name, Object value) {
        System.out.println("CHECK " + name + " " + value);
    }
}
