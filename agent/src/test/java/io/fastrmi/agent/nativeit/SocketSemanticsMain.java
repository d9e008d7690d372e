package io.fastrmi.agent.nativeit;

import io.fastrmi.fastsockets.jvm.JvmScope;
import io.fastrmi.fastsockets.rmi.FastRmiSocketFactory;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.rmi.server.RMISocketFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Socket semantics over whatever transport FastRMI negotiates, between two agent JVMs, with the
 * sockets of RMI's factory used directly (no RMI on top). Every write is flushed, as RMI flushes
 * each message: RMI's sockets gather writes until a flush (java.net's, under scope = jvm, do not).
 * Each connection starts with a command byte for the server. Usage: {@code server} (prints {@code READY port=P}, then {@code CONN transport}
 * per connection, {@code EOF transport} for one that ended before its command, {@code HANDLER error}
 * for one that failed) or {@code client TRANSPORT PORT [HOST]} (prints {@code PASS scenario} for each
 * scenario, the last of which kills the server; HOST defaults to 127.0.0.1). {@code server-jvm} and
 * {@code client-jvm} do the same with java.net's own sockets, for scope = jvm. {@code both-jvm} runs
 * {@link BothEnds}'s scenarios, each end of each connection in this one JVM, in an order no two JVMs
 * could force.
 */
public final class SocketSemanticsMain {

    /** Echo until the end of the stream, then end ours. */
    public static final int ECHO = 'E';
    /** Close at once. */
    static final int CLOSE = 'C';
    /** Count bytes to the end of the stream, answer the count, close. */
    static final int COUNT = 'N';
    /** Halt the server JVM: the peer dies. */
    static final int DIE = 'D';

    public static final List<String> SCENARIOS = List.of("closeBeforeUse", "echo", "timeout", "available", "shutdownOutput",
            "shutdownInput", "closeUnblocksReader", "peerCloseIsEof", "manyThreadsManySockets", "peerDeathIsAnException");

    public static final List<String> BOTH_ENDS_SCENARIOS = List.of("closedAfterTheAnswer", "firstByteIsTheUnusedSignal",
            "halfClosedAfterTheAnswer");

    /** Connections opened at once by manyThreadsManySockets. */
    static final int CONNECTIONS = 64;

    private SocketSemanticsMain() {
    }

    public static void main(String[] args) throws Exception {
        // java.net's own sockets for scope = jvm (FastRMI is under every socket of the JVM), else RMI's.
        RMISocketFactory factory;
        if (args[0].endsWith("-jvm")) {
            factory = new JavaNetSockets();
        } else {
            // FastRMI starts when RMI loads its first class; the sockets here come from RMI's factory
            // without a remote call, so RMI's endpoint class is loaded first, as any RMI use would.
            Class.forName("sun.rmi.transport.tcp.TCPEndpoint");
            factory = FastRmiSocketFactory.choose(RMISocketFactory.getDefaultSocketFactory());
        }
        if (args[0].equals("both-jvm")) {
            BothEnds.runAll();
        } else if (args[0].startsWith("server")) {
            serve(factory);
        } else {
            new Client(factory, args[1], args.length > 3 ? args[3] : "127.0.0.1", Integer.parseInt(args[2])).runAll();
        }
    }

    /**
     * java.net's sockets as a factory. (The testkit's AppSocketFactories.GlobalFactory is the same,
     * but the JVMs these tests start have only this module's test classes on their class path.)
     */
    private static final class JavaNetSockets extends RMISocketFactory {
        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return new Socket(host, port);
        }

        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port);
        }
    }

    private static void serve(RMISocketFactory factory) throws IOException {
        ServerSocket listener = factory.createServerSocket(0);
        System.out.println("READY port=" + listener.getLocalPort());
        while (true) {
            Socket socket = listener.accept();
            Thread handler = new Thread(() -> handle(socket), "handler");
            handler.setDaemon(true);
            handler.start();
        }
    }

    private static void handle(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            int command = in.read();
            if (command < 0) {
                System.out.println("EOF " + transportOf(socket));
                return;
            }
            System.out.println("CONN " + transportOf(socket));
            switch (command) {
                case ECHO -> {
                    byte[] buffer = new byte[32 * 1024];
                    int n;
                    while ((n = in.read(buffer)) > 0) {
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                    socket.shutdownOutput();
                }
                case COUNT -> {
                    long count = 0;
                    byte[] buffer = new byte[32 * 1024];
                    int n;
                    while ((n = in.read(buffer)) > 0) {
                        count += n;
                    }
                    DataOutputStream answer = new DataOutputStream(out);
                    answer.writeLong(count);
                    answer.flush();
                }
                case DIE -> Runtime.getRuntime().halt(3);
                default -> {
                    // CLOSE, and the end of the stream: closed by try-with-resources
                }
            }
        } catch (IOException e) {
            System.out.println("HANDLER " + e);
        }
    }

    static String transportOf(Socket socket) {
        return JvmScope.transportOf(socket).toString();
    }

    private record Client(RMISocketFactory factory, String transport, String host, int port) {

        void runAll() throws Exception {
            for (String scenario : SCENARIOS) {
                getClass().getDeclaredMethod(scenario).invoke(this);
                System.out.println("PASS " + scenario);
            }
        }

        Socket connect(int command) throws IOException {
            Socket socket = factory.createSocket(host, port);
            send(socket, new byte[] {(byte) command});
            // After the first write: under scope = jvm that is when the connection negotiates.
            check(transport.equals(transportOf(socket)), "connected over " + transportOf(socket) + ", not " + transport);
            return socket;
        }

        /** A connection closed before any read or write: the server reads its end (it prints EOF, no HANDLER error). */
        void closeBeforeUse() throws Exception {
            factory.createSocket(host, port).close();
        }

        /** 1 MiB written from one thread comes back in order on another; then the end of the stream. */
        void echo() throws Exception {
            try (Socket socket = connect(ECHO)) {
                byte[] sent = pattern(1 << 20);
                Thread writer = writeInBackground(socket, sent);
                byte[] received = new byte[sent.length];
                new DataInputStream(socket.getInputStream()).readFully(received);
                writer.join();
                check(Arrays.equals(sent, received), "the echo differs");
                socket.shutdownOutput();
                check(socket.getInputStream().read() == -1, "no end of stream after the server shut its output");
            }
        }

        /** SO_TIMEOUT ends a read that gets nothing, and the socket still works after it. */
        void timeout() throws Exception {
            try (Socket socket = connect(ECHO)) {
                socket.setSoTimeout(300);
                try {
                    int got = socket.getInputStream().read();
                    throw new IllegalStateException("read returned " + got + " instead of timing out");
                } catch (SocketTimeoutException expected) {
                    // and the connection lives on
                }
                send(socket, new byte[] {1, 2, 3, 4, 5});
                byte[] back = new byte[5];
                new DataInputStream(socket.getInputStream()).readFully(back);
                check(Arrays.equals(new byte[] {1, 2, 3, 4, 5}, back), "wrong bytes after a timeout");
            }
        }

        /** available() counts what arrived and can be read without blocking. */
        void available() throws Exception {
            try (Socket socket = connect(ECHO)) {
                InputStream in = socket.getInputStream();
                check(in.available() == 0, "available() is " + in.available() + " before anything was sent");
                send(socket, pattern(100));
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (in.available() < 100 && System.nanoTime() < giveUp) {
                    Thread.sleep(1);
                }
                check(in.available() == 100, "available() is " + in.available() + ", not the 100 bytes echoed");
                byte[] back = new byte[100];
                check(in.read(back) == 100, "a read after available() = 100 returned less");
                check(in.available() == 0, "available() is " + in.available() + " after reading everything");
            }
        }

        /** After shutdownOutput the server reads the end of the stream and we still read its answer. */
        void shutdownOutput() throws Exception {
            try (Socket socket = connect(COUNT)) {
                send(socket, new byte[12_345]);
                socket.shutdownOutput();
                check(socket.isOutputShutdown(), "isOutputShutdown() is false after shutdownOutput()");
                try {
                    socket.getOutputStream().write(1);
                    throw new IllegalStateException("a write after shutdownOutput() succeeded");
                } catch (SocketException expected) {
                    // as java.net says
                }
                DataInputStream in = new DataInputStream(socket.getInputStream());
                long count = in.readLong();
                check(count == 12_345, "the server counted " + count + " bytes, not 12345");
                check(in.read() == -1, "no end of stream after the server closed");
            }
        }

        /** After shutdownInput reads see the end of the stream, and writing goes on. */
        void shutdownInput() throws Exception {
            try (Socket socket = connect(ECHO)) {
                // Taken before: java.net's getInputStream() refuses a socket whose input is shut down.
                InputStream in = socket.getInputStream();
                socket.shutdownInput();
                check(socket.isInputShutdown(), "isInputShutdown() is false after shutdownInput()");
                check(in.read() == -1, "a read after shutdownInput() did not see the end");
                send(socket, new byte[1000]);
            }
        }

        /** A reader blocked on a socket is woken by close() from another thread, with a SocketException. */
        void closeUnblocksReader() throws Exception {
            Socket socket = connect(ECHO);
            Future<?> reader;
            ExecutorService executor = Executors.newSingleThreadExecutor();
            try {
                reader = executor.submit(() -> socket.getInputStream().read());
                Thread.sleep(300);
                socket.close();
                try {
                    Object got = reader.get(30, TimeUnit.SECONDS);
                    throw new IllegalStateException("the blocked read returned " + got + " after close()");
                } catch (java.util.concurrent.ExecutionException e) {
                    check(e.getCause() instanceof SocketException, "the blocked read failed with " + e.getCause());
                }
            } finally {
                executor.shutdownNow();
            }
            check(socket.isClosed(), "isClosed() is false after close()");
        }

        /** The server closing is the end of the stream, not an error. */
        void peerCloseIsEof() throws Exception {
            try (Socket socket = connect(CLOSE)) {
                socket.setSoTimeout(30_000);
                check(socket.getInputStream().read() == -1, "no end of stream after the server closed");
            }
        }

        /** CONNECTIONS sockets at once, each echoing on a thread of its own. */
        void manyThreadsManySockets() throws Exception {
            ExecutorService executor = Executors.newFixedThreadPool(CONNECTIONS);
            try {
                List<Socket> sockets = new ArrayList<>();
                for (int i = 0; i < CONNECTIONS; i++) {
                    sockets.add(connect(ECHO));
                }
                List<Future<?>> echoes = new ArrayList<>();
                for (int i = 0; i < CONNECTIONS; i++) {
                    Socket socket = sockets.get(i);
                    byte seed = (byte) i;
                    echoes.add(executor.submit(() -> {
                        try (socket) {
                            DataInputStream in = new DataInputStream(socket.getInputStream());
                            for (int round = 0; round < 20; round++) {
                                byte[] sent = pattern(8192 + round);
                                sent[0] = seed;
                                send(socket, sent);
                                byte[] received = new byte[sent.length];
                                in.readFully(received);
                                check(Arrays.equals(sent, received), "connection " + seed + " round " + round + " differs");
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> echo : echoes) {
                    echo.get(2, TimeUnit.MINUTES);
                }
            } finally {
                executor.shutdownNow();
            }
        }

        /**
         * The server JVM halting mid-read is an exception here on a native transport (the control
         * connection ended without a close), not an end of stream and never a hang.
         */
        void peerDeathIsAnException() throws Exception {
            try (Socket socket = connect(DIE)) {
                socket.setSoTimeout(60_000);
                try {
                    int got = socket.getInputStream().read();
                    // TCP cannot tell a death from a close: the kernel ends a dead process's connections.
                    check(got == -1 && transport.equals("tcp"), "read returned " + got + " after the server died");
                    System.out.println("DIED end of stream (tcp)");
                } catch (SocketTimeoutException e) {
                    throw new IllegalStateException("the server's death went unnoticed for 60 s", e);
                } catch (IOException expected) {
                    System.out.println("DIED " + expected);
                }
            }
        }

        private static Thread writeInBackground(Socket socket, byte[] bytes) {
            Thread writer = new Thread(() -> {
                try {
                    send(socket, bytes);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            writer.start();
            return writer;
        }

        /** Writes and flushes, as RMI does with every message (RMI's sockets send at its flush). */
        private static void send(Socket socket, byte[] bytes) throws IOException {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        }

        private static void check(boolean condition, String failure) {
            if (!condition) {
                throw new IllegalStateException(failure);
            }
        }
    }

    /**
     * Both ends of each connection in this JVM under scope = jvm, so that the listener answers the
     * offer before the client does anything more: the order the lazy negotiation makes a race of
     * between two JVMs.
     */
    static final class BothEnds {
        static void runAll() throws Exception {
            for (String scenario : BOTH_ENDS_SCENARIOS) {
                BothEnds.class.getDeclaredMethod(scenario).invoke(null);
                System.out.println("PASS " + scenario);
            }
        }

        /**
         * The client closes unused after the listener answered: the listener reads the end of the
         * stream, not the signal a client closing unused sends (under a socket answer it was read
         * as the connection's first byte of data).
         */
        static void closedAfterTheAnswer() throws Exception {
            try (ServerSocket listener = new ServerSocket(0)) {
                Socket client = new Socket(listener.getInetAddress(), listener.getLocalPort());
                try (Socket accepted = listener.accept()) {
                    answer(accepted);
                    client.close();
                    accepted.setSoTimeout(30_000);
                    int first = accepted.getInputStream().read();
                    Client.check(first == -1, "the listener read " + first + ", not the end of a stream closed unused ("
                            + transportOf(accepted) + ")");
                }
            }
        }

        /** A client whose first byte of data is the value of that signal: the listener reads it as data. */
        static void firstByteIsTheUnusedSignal() throws Exception {
            try (ServerSocket listener = new ServerSocket(0)) {
                Socket client = new Socket(listener.getInetAddress(), listener.getLocalPort());
                try (Socket accepted = listener.accept()) {
                    answer(accepted);
                    Client.send(client, new byte[] {0x55, 7});
                    client.close();
                    accepted.setSoTimeout(30_000);
                    InputStream in = accepted.getInputStream();
                    int first = in.read();
                    int second = in.read();
                    int end = in.read();
                    Client.check(first == 0x55 && second == 7 && end == -1, "the listener read " + first + ", " + second
                            + ", " + end + ", not 85, 7, -1 (" + transportOf(accepted) + ")");
                }
            }
        }

        /** The client reads, then shuts its output without writing: the listener reads the end at once. */
        static void halfClosedAfterTheAnswer() throws Exception {
            try (ServerSocket listener = new ServerSocket(0)) {
                try (Socket client = new Socket(listener.getInetAddress(), listener.getLocalPort());
                        Socket accepted = listener.accept()) {
                    answer(accepted);
                    // Read on another thread: a native stream's first write waits for the reader's end to open.
                    ExecutorService executor = Executors.newSingleThreadExecutor();
                    try {
                        Future<Integer> read = executor.submit(() -> client.getInputStream().read());
                        accepted.getOutputStream().write('G');
                        Client.check(read.get(30, TimeUnit.SECONDS) == 'G', "the client did not read the listener's byte");
                    } finally {
                        executor.shutdownNow();
                    }
                    client.shutdownOutput();
                    accepted.setSoTimeout(30_000);
                    int first = accepted.getInputStream().read();
                    Client.check(first == -1, "the listener read " + first + ", not the end of a half-closed stream");
                }
            }
        }

        /** The listener negotiates (available() runs it once the offer is there) and answers. */
        private static void answer(Socket accepted) throws Exception {
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (transportOf(accepted).equals("pending") && System.nanoTime() < giveUp) {
                accepted.getInputStream().available();
                Thread.sleep(1);
            }
            Client.check(!transportOf(accepted).equals("pending") && !transportOf(accepted).equals("none"),
                    "the listener did not negotiate: " + transportOf(accepted));
        }
    }

    /** Bytes that differ from one offset to the next, the same for the same size on both ends. */
    static byte[] pattern(int size) {
        byte[] bytes = new byte[size];
        new java.util.Random(size).nextBytes(bytes);
        return bytes;
    }
}
