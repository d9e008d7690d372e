package io.fastrmi.netpipe;

import io.fastrmi.netpipe.bench.SuiteResults;
import io.fastrmi.netpipe.bench.BenchServer;
import io.fastrmi.netpipe.breakdown.CallBreakdown;
import io.fastrmi.netpipe.dirmi.DirmiPeer;
import io.fastrmi.netpipe.grpc.GrpcPeer;
import io.fastrmi.netpipe.np.Calls;
import io.fastrmi.netpipe.np.Exchange;
import io.fastrmi.netpipe.np.KarmiObject;
import io.fastrmi.netpipe.np.KernelExchange;
import io.fastrmi.netpipe.np.Point;
import io.fastrmi.netpipe.np.RepeatPlan;
import io.fastrmi.netpipe.np.RmiArrayExchange;
import io.fastrmi.netpipe.np.RmiCalls;
import io.fastrmi.netpipe.np.SizeSchedule;
import io.fastrmi.netpipe.np.SocketEchoServer;
import io.fastrmi.netpipe.np.SocketExchange;
import io.fastrmi.netpipe.np.Sweep;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * netpipe-java: NetPIPE's ping-pong for Java sockets and Java RMI, and KaRMI's RMI kernels. A server
 * ({@code netpipe-java server --mode socket|rmi}) and a client ({@code socket}, {@code rmi} or
 * {@code kernel}) in two JVMs; the client writes NetPIPE's np.out (bytes, Mbps, seconds) and its
 * progress to stderr.
 */
@Command(name = "netpipe-java", mixinStandardHelpOptions = true, version = "netpipe-java 0.1.0",
        description = "NetPIPE-style ping-pong for Java sockets and RMI, and KaRMI's RMI kernels.",
        subcommands = {NetPipe.Server.class, NetPipe.SocketMode.class, NetPipe.RmiMode.class, NetPipe.KernelMode.class,
                NetPipe.Suite.class, io.fastrmi.netpipe.bench.Compare.class, NetPipe.Breakdown.class})
public final class NetPipe {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line; a bad value found while running (an object's name, a kernel's) or a kernel the
     * peer cannot run (pingpong on gRPC) is a usage error, exit 2, said in one line. An option given
     * twice takes its last value (scripts/compare.sh passes its defaults first).
     */
    public static CommandLine commandLine() {
        return new CommandLine(new NetPipe()).setCaseInsensitiveEnumValuesAllowed(true).setOverwrittenOptionsAllowed(true)
                .setExecutionExceptionHandler((e, line, parsed) -> {
                    if (e instanceof IllegalArgumentException || e instanceof UnsupportedOperationException) {
                        line.getErr().println("netpipe-java " + line.getCommandName() + ": " + e.getMessage());
                        return 2;
                    }
                    throw e;
                });
    }

    /** What a server serves: the socket echo, the RMI service, or the same calls on Dirmi or gRPC. */
    enum ServerMode { SOCKET, RMI, DIRMI, GRPC }

    /** What carries the rmi and kernel commands' calls: Java RMI, or a reference peer (Cojen Dirmi, gRPC-java). */
    enum Protocol { RMI, DIRMI, GRPC }

    @Command(name = "server",
            description = "Serve the socket echo or the RMI service; prints READY <port>, then runs until killed.")
    static final class Server implements Callable<Integer> {

        @Mixin
        Help help;

        @Option(names = "--mode", required = true, description = "socket or rmi")
        ServerMode mode;

        @Option(names = {"-P", "--port"}, description = "port to listen on (0: a free one; default ${DEFAULT-VALUE})")
        int port;

        @Option(names = "--host", description = "the address this server's RMI stubs name (java.rmi.server.hostname)")
        String host;

        @Override
        public Integer call() throws Exception {
            if (host != null) {
                System.setProperty("java.rmi.server.hostname", host);
            }
            if (mode == ServerMode.GRPC) {
                io.grpc.Server server = GrpcPeer.serve(port);
                System.out.println("READY " + server.getPort());
                System.out.flush();
                server.awaitTermination();
                return 0;
            }
            if (mode == ServerMode.RMI) {
                System.out.println("READY " + BenchServer.start(port));
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
                return 0;
            }
            try (ServerSocket listener = new ServerSocket(port)) {
                if (mode == ServerMode.DIRMI) {
                    try (var env = DirmiPeer.serve(listener)) {
                        System.out.println("READY " + listener.getLocalPort());
                        System.out.flush();
                        Thread.sleep(Long.MAX_VALUE);
                    }
                    return 0;
                }
                System.out.println("READY " + listener.getLocalPort());
                System.out.flush();
                SocketEchoServer.serve(listener);
            }
            return 0;
        }
    }

    /** {@code --help} alone: {@code -h} is NetPIPE's host option. */
    static final class Help {
        @Option(names = "--help", usageHelp = true, description = "show this help and exit")
        boolean help;
    }

    /** Where the server is. */
    static final class Peer {
        @Option(names = {"-h", "--host"}, required = true, description = "the server's host")
        String host;

        @Option(names = {"-P", "--port"}, required = true, description = "the server's port (its READY line)")
        int port;

        @Option(names = "--peer", description = "rmi (Java RMI; under the agent, FastRMI), dirmi (Cojen Dirmi) or grpc (gRPC-java) (default ${DEFAULT-VALUE})")
        Protocol protocol = Protocol.RMI;

        /** The calls to the server; close them after. */
        AutoCloseableCalls connect() throws Exception {
            String address = InetAddress.getByName(host).getHostAddress();
            if (protocol == Protocol.GRPC) {
                GrpcPeer.GrpcCalls calls = GrpcPeer.connect(address, port);
                return new AutoCloseableCalls(calls, calls::close);
            }
            if (protocol == Protocol.DIRMI) {
                DirmiPeer.DirmiCalls calls = DirmiPeer.connect(address, port);
                return new AutoCloseableCalls(calls, calls::close);
            }
            RmiCalls calls = RmiCalls.connect(address, port);
            return new AutoCloseableCalls(calls, calls::close);
        }
    }

    /** A peer's calls and how to end them. */
    record AutoCloseableCalls(Calls calls, AutoCloseable closer) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            closer.close();
        }
    }

    /** NetPIPE's options for a sweep. */
    static final class SweepOptions {
        @Option(names = {"-l", "--lower"}, description = "smallest message, bytes (default ${DEFAULT-VALUE})")
        int lower = 1;

        @Option(names = {"-u", "--upper"}, description = "largest message, bytes (default ${DEFAULT-VALUE}: 8 MiB)")
        int upper = 8 * 1024 * 1024;

        @Option(names = {"-p", "--perturbation"}, description = "NetPIPE's perturbation, bytes; 0 for none (default ${DEFAULT-VALUE})")
        int perturbation = SizeSchedule.DEFAULT_PERTURBATION;

        @Option(names = {"-o", "--output"}, description = "np.out file (default ${DEFAULT-VALUE})")
        Path output = Path.of("np.out");

        @Option(names = "--trials", description = "trials per point, the best kept (default ${DEFAULT-VALUE})")
        int trials = 3;

        @Option(names = "--trial-time", description = "seconds one trial aims at (default ${DEFAULT-VALUE})")
        double trialSeconds = RepeatPlan.DEFAULT_TRIAL_SECONDS;

        @Option(names = "--min-repeats", description = "fewest exchanges in a trial (default ${DEFAULT-VALUE})")
        int minRepeats = 3;

        @Option(names = "--max-repeats", description = "most exchanges in a trial (default ${DEFAULT-VALUE})")
        int maxRepeats = 1_000_000;

        @Option(names = "--warmup", description = "JIT warm-up exchanges before measuring (default ${DEFAULT-VALUE})")
        int warmup = 10_000;

        @Option(names = "--stop-time", description = "stop after a point slower than this many seconds one way (default ${DEFAULT-VALUE})")
        double stopSeconds = 1.0;

        List<Integer> sizes() {
            return SizeSchedule.sizes(lower, upper, perturbation);
        }

        /** Runs the sweep, writing np.out as points come, and prints where it went. */
        int sweep(Exchange exchange, List<Integer> sizes) throws Exception {
            List<Point> points = measure(exchange, sizes, output);
            System.out.printf(Locale.ROOT, "%s: %d points in %s%n", exchange.describe(), points.size(), output);
            for (Point point : points) {
                System.out.println(pointLine(point));
            }
            return 0;
        }

        /** The sweep's points, written to {@code npOut} as they come. */
        List<Point> measure(Exchange exchange, List<Integer> sizes, Path npOut) throws Exception {
            Sweep sweep = new Sweep(exchange, new RepeatPlan(trialSeconds, minRepeats, maxRepeats), trials, warmup,
                    stopSeconds, System.err);
            try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(npOut, StandardCharsets.UTF_8))) {
                return sweep.run(sizes, point -> {
                    out.println(point.npOutLine());
                    out.flush();
                });
            }
        }
    }

    @Command(name = "socket",
            description = "Ping-pong over java.net.Socket (over FastRMI's sockets under the agent with scope = jvm).")
    static final class SocketMode implements Callable<Integer> {
        @Mixin
        Help help;

        @Mixin
        Peer peer;

        @Mixin
        SweepOptions sweep;

        @Option(names = "--one-way", description = "messages go one way; the server answers once per trial")
        boolean oneWay;

        @Override
        public Integer call() throws Exception {
            try (SocketExchange exchange = new SocketExchange(peer.host, peer.port, oneWay)) {
                return sweep.sweep(exchange, sweep.sizes());
            }
        }
    }

    @Command(name = "rmi",
            description = "Echo (or send one way) arrays over RMI; sizes are the arrays' bytes.")
    static final class RmiMode implements Callable<Integer> {
        @Mixin
        Help help;

        @Mixin
        Peer peer;

        @Mixin
        SweepOptions sweep;

        @Option(names = "--type", description = "byte, int or double (default ${DEFAULT-VALUE})")
        RmiArrayExchange.Type type = RmiArrayExchange.Type.BYTE;

        @Option(names = "--one-way", description = "the array goes to the server; only the call's completion comes back")
        boolean oneWay;

        @Override
        public Integer call() throws Exception {
            try (AutoCloseableCalls calls = peer.connect();
                    RmiArrayExchange exchange = new RmiArrayExchange(calls.calls(), type, oneWay)) {
                return sweep.sweep(exchange, sweep.sizes());
            }
        }
    }

    @Command(name = "kernel",
            description = "One of KaRMI's kernels: ping, ping-ii, ping-iiff, obj, pingpong or star, with an object.")
    static final class KernelMode implements Callable<Integer> {
        @Mixin
        Help help;

        @Mixin
        Peer peer;

        @Mixin
        SweepOptions sweep;

        @Option(names = "--kernel", required = true, description = "ping, ping-ii, ping-iiff, obj, pingpong or star")
        String kernel;

        @Option(names = "--obj", description = "the object sent: " + KarmiObject.NAMES + " (default ${DEFAULT-VALUE})")
        String object = "null";

        @Option(names = "--clients", description = "star's client threads (default ${DEFAULT-VALUE})")
        int clients = 8;

        @Override
        public Integer call() throws Exception {
            KernelExchange.Kernel chosen = KernelExchange.Kernel.named(kernel);
            KarmiObject sent = KarmiObject.parse(object);
            try (AutoCloseableCalls calls = peer.connect();
                    KernelExchange exchange = new KernelExchange(calls.calls(), chosen, sent, clients)) {
                return sweep.sweep(exchange, List.of(0));
            }
        }
    }

    @Command(name = "suite",
            description = "Several kernels and array sweeps against one server in one JVM, as the side-by-side run"
                    + " uses it: a RESULT or FAILED line per item, an np.out file per item in --out, and with --results"
                    + " the same as JSON.")
    public static final class Suite implements Callable<Integer> {

        @Mixin
        Help help;

        @Mixin
        Peer peer;

        @Mixin
        SweepOptions sweep;

        @Option(names = "--kernels", split = ",", description = "KERNEL[/OBJ] items, e.g. ping,obj/tree15,star/float:50")
        List<String> kernels = List.of();

        @Option(names = "--sweeps", split = ",", description = "array sweeps from -l to -u: byte, int, double, and"
                + " TYPE-one-way, e.g. byte,double,byte-one-way")
        List<String> sweeps = List.of();

        @Option(names = "--clients", description = "star's client threads (default ${DEFAULT-VALUE})")
        int clients = 8;

        @Option(names = "--out", required = true, description = "folder for the np.out files, one per item")
        Path out;

        @Option(names = "--results", description = "a JSON file of every item's outcome, written as they come (SuiteResults)")
        Path results;

        private SuiteResults written;

        @Override
        public Integer call() throws Exception {
            Files.createDirectories(out);
            written = results == null ? null : new SuiteResults(results);
            int failed = 0;
            try (AutoCloseableCalls calls = peer.connect()) {
                for (String item : kernels) {
                    failed += run(item, () -> {
                        String[] parts = item.split("/", 2);
                        return new KernelExchange(calls.calls(), KernelExchange.Kernel.named(parts[0]),
                                KarmiObject.parse(parts.length > 1 ? parts[1] : "null"), clients);
                    }, List.of(0));
                }
                for (String item : sweeps) {
                    boolean oneWay = item.endsWith("-one-way");
                    String type = oneWay ? item.substring(0, item.length() - "-one-way".length()) : item;
                    failed += run("sweep-" + item, () -> new RmiArrayExchange(calls.calls(),
                            RmiArrayExchange.Type.valueOf(type.toUpperCase(Locale.ROOT)), oneWay), sweep.sizes());
                }
            }
            return failed == 0 ? 0 : 1;
        }

        private void record(SuiteResults.Item item) {
            if (written == null) {
                return;
            }
            try {
                written.add(item);
            } catch (java.io.IOException e) {
                System.out.println("FAILED " + item.item() + " cannot write " + results + ": " + e.getMessage());
            }
        }

        /** Runs one item; 1 when it failed (said on a FAILED line), else 0. */
        private int run(String item, Callable<Exchange> exchange, List<Integer> sizes) {
            try (Exchange chosen = exchange.call()) {
                List<Point> points = sweep.measure(chosen, sizes, out.resolve(item.replaceAll("[^A-Za-z0-9_.-]", "_") + ".out"));
                Point first = points.get(0);
                System.out.printf(Locale.ROOT, "RESULT %s %.3f %d%n", item, first.bestRoundTripSeconds() * 1e6, first.bytes());
                record(SuiteResults.Item.measured(item, first.bestRoundTripSeconds() * 1e6, first.bytes()));
                return 0;
            } catch (Exception | Error e) {
                String why = String.valueOf(e).replace('\n', ' ');
                System.out.println("FAILED " + item + " " + why);
                e.printStackTrace();
                record(SuiteResults.Item.failed(item, why));
                return 1;
            } finally {
                System.out.flush();
            }
        }
    }

    @Command(name = "breakdown",
            description = "Where RMI calls' time went, from JFR recordings with method sampling (settings=profile,"
                    + " stackdepth=256): network, serialization, protocol, DGC, application (seed 003's figures 2 and 6).")
    static final class Breakdown implements Callable<Integer> {
        @Mixin
        Help help;

        @picocli.CommandLine.Parameters(paramLabel = "RECORDING", arity = "1..*", description = "JFR files, e.g. a client's and a server's")
        List<Path> recordings;

        @Override
        public Integer call() throws Exception {
            for (Path recording : recordings) {
                System.out.print(CallBreakdown.of(recording).report(recording.toString()));
            }
            return 0;
        }
    }

    /**
     * {@code POINT bytes Mbps seconds repeats call_us}: a point as np.out has it, its exchanges per trial, and
     * the best trial's time per exchange (a KaRMI kernel's time per call) in microseconds.
     */
    static String pointLine(Point point) {
        return String.format(Locale.ROOT, "POINT %d %.3f %.9f %d %.3f", point.bytes(), point.mbps(), point.seconds(),
                point.repeats(), point.bestRoundTripSeconds() * 1e6);
    }
}
