package io.fastrmi.agent.nativeit;

import io.fastrmi.fastsockets.jvm.JvmScope;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A server-speaks-first protocol over java.net's own sockets (as SMTP or MySQL): the server greets
 * first, then answers {@code PING n} with {@code PONG n} ({@code SLEEP ms} with {@code AWAKE ms}, that
 * much later) until {@code QUIT}. The client waits
 * {@value #CLIENT_TIMEOUT_MILLIS} ms at most for each line, so a server that waits for something
 * before greeting fails it. Usage: {@code server [PORT]} (prints {@code READY port=P}, then
 * {@code CONN transport} per connection) or {@code client PORT [HOST]} (prints {@code TRANSPORT
 * transport} and {@code DONE}; HOST defaults to 127.0.0.1), or {@code timed PORT MS} (pings once,
 * settles as {@link TimedCallClientMain} does, prints {@code READY transport}; on a line from stdin asks the
 * server to sleep MS, prints {@code DONE} at its answer and exits on the next line).
 * The transport is what FastRMI reports for the socket ({@code none}: not FastRMI's).
 */
public final class GreetingMain {

    static final int CLIENT_TIMEOUT_MILLIS = 20_000;
    static final int ROUNDS = 100;

    private GreetingMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("server")) {
            serve(args.length > 1 ? Integer.parseInt(args[1]) : 0);
        } else if (args[0].equals("timed")) {
            timed(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
        } else {
            talk(args.length > 2 ? args[2] : "127.0.0.1", Integer.parseInt(args[1]));
        }
    }

    private static void serve(int port) throws IOException {
        ServerSocket listener = new ServerSocket(port);
        System.out.println("READY port=" + listener.getLocalPort());
        while (true) {
            Socket socket = listener.accept();
            Thread handler = new Thread(() -> greetAndAnswer(socket), "handler");
            handler.setDaemon(true);
            handler.start();
        }
    }

    private static void greetAndAnswer(Socket socket) {
        try (socket) {
            PrintStream out = new PrintStream(socket.getOutputStream(), true, StandardCharsets.US_ASCII);
            out.print("220 greetings\n");
            out.flush();
            System.out.println("CONN " + transportOf(socket));
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("QUIT")) {
                    out.print("221 bye\n");
                    break;
                }
                if (line.startsWith("SLEEP ")) {
                    Thread.sleep(Long.parseLong(line.substring("SLEEP ".length())));
                    out.print(line.replace("SLEEP", "AWAKE") + "\n");
                    continue;
                }
                out.print(line.replace("PING", "PONG") + "\n");
            }
        } catch (IOException | InterruptedException e) {
            System.out.println("HANDLER " + e);
        }
    }

    private static void timed(int port, int millis) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            expect("220 greetings", in.readLine());
            out.write("PING 0\n".getBytes(StandardCharsets.US_ASCII));
            expect("PONG 0", in.readLine());
            Thread.sleep(TimedCallClientMain.SETTLE_MILLIS);
            BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
            System.out.println("READY " + transportOf(socket));
            stdin.readLine();
            out.write(("SLEEP " + millis + "\n").getBytes(StandardCharsets.US_ASCII));
            expect("AWAKE " + millis, in.readLine());
            System.out.println("DONE");
            stdin.readLine();
        }
    }

    private static void talk(String host, int port) throws IOException {
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout(CLIENT_TIMEOUT_MILLIS);
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            expect("220 greetings", in.readLine());
            for (int round = 0; round < ROUNDS; round++) {
                out.write(("PING " + round + "\n").getBytes(StandardCharsets.US_ASCII));
                expect("PONG " + round, in.readLine());
            }
            out.write("QUIT\n".getBytes(StandardCharsets.US_ASCII));
            expect("221 bye", in.readLine());
            System.out.println("TRANSPORT " + transportOf(socket));
            System.out.println("DONE");
        }
    }

    /** FastRMI's view of the socket; "none" in a JVM without the agent. */
    private static String transportOf(Socket socket) {
        try {
            return JvmScope.transportOf(socket).toString();
        } catch (NoClassDefFoundError e) {
            return "none";
        }
    }

    private static void expect(String expected, String got) {
        if (!expected.equals(got)) {
            throw new IllegalStateException("expected '" + expected + "', got '" + got + "'");
        }
    }
}
