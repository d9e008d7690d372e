package io.fastrmi.netpipe;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeLibraries;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A NetPIPE-style socket ping-pong between two JVMs: java.net over loopback TCP, and each native
 * transport through FastRMI's FFM binding (the byte streams RMI's sockets run on), side by side
 * in one run; with {@code --agent}, also java.net's own sockets in two agent JVMs with scope = jvm
 * on each shared-memory transport (rows "jvm ucx:shm", ...: the same application code as the
 * java.net row). Prints the best mean round trip of each (half of it is NetPIPE's one-way latency).
 *
 * <p>Usage: {@code PingPong --library libfastrmi.so [--agent fastrmi-agent.jar] [--jdk HOME] [--size BYTES]
 * [--iterations N] [--trials T]}
 */
public final class PingPong {

    private static final Pattern RESULT = Pattern.compile("^ROUNDTRIP ([0-9.]+)$");
    private static final String[] TRANSPORTS = {"java.net", "ofi:shm", "ucx:shm", "ofi:tcp;ofi_rxm", "ucx:tcp"};
    private static final String[] JVM_SCOPE_TRANSPORTS = {"ofi:shm", "ucx:shm"};
    private static final String JVM_SCOPE = "jvm ";
    /** The native rows' spin; the scope = jvm rows get the same through their config. */
    private static final int SPIN_MICROS = 200;

    private PingPong() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && (args[0].equals("serve") || args[0].equals("ping"))) {
            worker(args);
            return;
        }
        Path library = null;
        Path agent = null;
        Jdk jdk = Jdk.at(Path.of(System.getProperty("java.home"))).orElseThrow();
        int size = 64;
        int iterations = 20_000;
        int trials = 3;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--library" -> library = Path.of(args[i + 1]);
                case "--agent" -> agent = Path.of(args[i + 1]);
                case "--jdk" -> jdk = Jdk.at(Path.of(args[i + 1])).orElseThrow();
                case "--size" -> size = Integer.parseInt(args[i + 1]);
                case "--iterations" -> iterations = Integer.parseInt(args[i + 1]);
                case "--trials" -> trials = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (library == null) {
            System.err.println("usage: PingPong --library libfastrmi.so [--agent fastrmi-agent.jar] [--jdk HOME] [--size B]"
                    + " [--iterations N] [--trials T]");
            System.exit(2);
        }
        System.out.printf(Locale.ROOT, "socket ping-pong, %d B messages, %d round trips, best of %d trials, JDK %s%n",
                size, iterations, trials, jdk.version());
        System.out.printf(Locale.ROOT, "%-18s %14s %14s %12s%n", "transport", "round trip us", "one way us", "vs java.net");
        List<String> rows = new ArrayList<>(List.of(TRANSPORTS));
        if (agent != null) {
            for (String transport : JVM_SCOPE_TRANSPORTS) {
                rows.add(JVM_SCOPE + transport);
            }
        }
        double javaNet = 0;
        for (String transport : rows) {
            double best = Double.MAX_VALUE;
            for (int trial = 0; trial < trials; trial++) {
                best = Math.min(best, run(jdk, library, agent, transport, size, iterations));
            }
            if (transport.equals("java.net")) {
                javaNet = best;
            }
            System.out.printf(Locale.ROOT, "%-18s %14.2f %14.2f %12.2f%n", transport, best, best / 2, best / javaNet);
        }
    }

    private static double run(Jdk jdk, Path library, Path agent, String transport, int size, int iterations)
            throws IOException {
        List<String> common = List.of(library.toString(), transport, String.valueOf(size), String.valueOf(iterations));
        java.util.function.UnaryOperator<JvmLauncher> setup = jvm -> jvm;
        if (transport.startsWith(JVM_SCOPE)) {
            Path config = java.nio.file.Files.createTempFile("pingpong-", ".conf");
            config.toFile().deleteOnExit();
            java.nio.file.Files.write(config, List.of("scope = jvm", "spin = " + SPIN_MICROS + "us", "[host local]",
                    "optimize = on", "transports = " + transport.substring(JVM_SCOPE.length()) + ", tcp"));
            setup = jvm -> jvm.agent(agent, "config=" + config);
        }
        try (ManagedJvm server = setup.apply(worker(jdk, "serve", common)).start()) {
            String port = server.awaitLine(Pattern.compile("^READY port=(\\d+)$"), Duration.ofSeconds(30)).group(1);
            List<String> pingArgs = new ArrayList<>(common);
            pingArgs.add(port);
            try (ManagedJvm client = setup.apply(worker(jdk, "ping", pingArgs)).start()) {
                if (client.awaitExit(Duration.ofMinutes(5)) != 0) {
                    throw client.failure("ping failed");
                }
                if (transport.startsWith(JVM_SCOPE)
                        && !client.output().contains("TRANSPORT " + transport.substring(JVM_SCOPE.length()))) {
                    throw client.failure("scope = jvm did not negotiate " + transport.substring(JVM_SCOPE.length()));
                }
                for (String line : client.output()) {
                    Matcher m = RESULT.matcher(line);
                    if (m.matches()) {
                        return Double.parseDouble(m.group(1));
                    }
                }
                throw client.failure("no result");
            }
        }
    }

    private static JvmLauncher worker(Jdk jdk, String role, List<String> args) {
        return JvmLauncher.on(jdk).name(role).jvmArgs("--enable-native-access=ALL-UNNAMED")
                .classpathOf(PingPong.class).classpathOf(NativeLibraries.class).classpathOf(JvmLauncher.class).classpathOf(TransportName.class)
                .main(PingPong.class).args(role).args(args);
    }

    /** {@code serve|ping LIBRARY TRANSPORT SIZE ITERATIONS [PORT]}: one end of one measurement. */
    private static void worker(String[] args) throws Exception {
        boolean serve = args[0].equals("serve");
        String transport = args[2];
        int size = Integer.parseInt(args[3]);
        int iterations = Integer.parseInt(args[4]);
        try (ServerSocket listener = serve ? new ServerSocket(0, 1, InetAddress.getLoopbackAddress()) : null) {
            if (serve) {
                System.out.println("READY port=" + listener.getLocalPort());
            }
            try (Socket control = serve ? listener.accept()
                    : new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(args[5]))) {
                control.setTcpNoDelay(true);
                if (transport.equals("java.net") || transport.startsWith(JVM_SCOPE)) {
                    // Under scope = jvm the agent made these sockets FastRMI's: the same code runs natively.
                    pingPong(serve, size, iterations, control.getInputStream()::read, control.getOutputStream());
                    if (!serve && transport.startsWith(JVM_SCOPE)) {
                        System.out.println("TRANSPORT " + io.fastrmi.fastsockets.jvm.JvmScope.transportOf(control));
                    }
                    return;
                }
                NativeLibrary library = NativeLibraries.load(Path.of(args[1]), PingPong.class.getClassLoader());
                if (library == null) {
                    throw new IllegalStateException(NativeLibraries.unavailableReason());
                }
                try (NativeTransport nativeTransport = library.openTransport(TransportName.parse(transport),
                        Integer.getInteger("fastrmi.spin-micros", SPIN_MICROS), WaitMode.ADAPTIVE)) {
                    NativeStream stream = nativeTransport.openOver(control, serve ? 2 : 1);
                    pingPong(serve, size, iterations, (b, off, len) -> stream.read(b, off, len, 0), new OutputStream() {
                        @Override
                        public void write(int b) {
                            throw new UnsupportedOperationException();
                        }

                        @Override
                        public void write(byte[] b, int off, int len) throws IOException {
                            stream.write(b, off, len);
                        }
                    });
                    stream.close();
                }
            }
        }
    }

    @FunctionalInterface
    private interface Reader {
        int read(byte[] buffer, int offset, int length) throws IOException;
    }

    private static void pingPong(boolean serve, int size, int iterations, Reader in, OutputStream out) throws IOException {
        byte[] message = new byte[size];
        int warmUp = Math.min(10_000, iterations);
        if (serve) {
            for (int i = 0; i < warmUp + iterations; i++) {
                readFully(in, message);
                out.write(message, 0, size);
            }
            return;
        }
        for (int i = 0; i < warmUp; i++) {
            out.write(message, 0, size);
            readFully(in, message);
        }
        long start = System.nanoTime();
        for (int i = 0; i < iterations; i++) {
            out.write(message, 0, size);
            readFully(in, message);
        }
        System.out.printf(Locale.ROOT, "ROUNDTRIP %.3f%n", (System.nanoTime() - start) / 1e3 / iterations);
    }

    private static void readFully(Reader in, byte[] into) throws IOException {
        int at = 0;
        while (at < into.length) {
            int n = in.read(into, at, into.length - at);
            if (n < 0) {
                throw new IOException("end of stream");
            }
            at += n;
        }
    }
}
