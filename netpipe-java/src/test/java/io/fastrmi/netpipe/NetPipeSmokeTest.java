package io.fastrmi.netpipe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.netpipe.np.SizeSchedule;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Each mode of netpipe-java for a few points: a server JVM per mode, the client's command line run here,
 * and the np.out it writes read back.
 */
class NetPipeSmokeTest {

    private static final Pattern READY = Pattern.compile("^READY (\\d+)$");
    private static final String[] QUICK = {"--warmup", "200", "--trial-time", "0.002", "--trials", "2"};

    private static ManagedJvm socketServer;
    private static ManagedJvm rmiServer;
    private static ManagedJvm dirmiServer;
    private static ManagedJvm grpcServer;
    private static int socketPort;
    private static int rmiPort;
    private static int dirmiPort;
    private static int grpcPort;

    @TempDir
    Path dir;

    @BeforeAll
    static void startServers() {
        socketServer = server("socket");
        socketPort = Integer.parseInt(socketServer.awaitLine(READY, Duration.ofSeconds(30)).group(1));
        rmiServer = server("rmi");
        rmiPort = Integer.parseInt(rmiServer.awaitLine(READY, Duration.ofSeconds(30)).group(1));
        dirmiServer = server("dirmi");
        dirmiPort = Integer.parseInt(dirmiServer.awaitLine(READY, Duration.ofSeconds(30)).group(1));
        grpcServer = server("grpc");
        grpcPort = Integer.parseInt(grpcServer.awaitLine(READY, Duration.ofSeconds(30)).group(1));
    }

    private static ManagedJvm server(String mode) {
        return JvmLauncher.on(Jdk.at(Path.of(System.getProperty("java.home"))).orElseThrow()).name(mode + "-server")
                .classpathOf(NetPipe.class).classpathOf(CommandLine.class).classpathOf(Jdk.class)
                .classpathOf(org.cojen.dirmi.Environment.class).classpathOf(org.cojen.maker.ClassMaker.class)
                .classpath(grpcClasspath())
                .main(NetPipe.class).args("server", "--mode", mode).timeLimit(Duration.ofMinutes(3)).start();
    }

    @AfterAll
    static void stopServers() {
        for (ManagedJvm server : new ManagedJvm[] {socketServer, rmiServer, dirmiServer, grpcServer}) {
            if (server != null) {
                server.close();
            }
        }
    }

    @Test
    void socketModeWritesAPointPerSize() throws IOException {
        List<double[]> points = run("socket", socketPort, "-u", "100");
        assertEquals(SizeSchedule.sizes(1, 100, 3).size(), points.size());
        assertTrue(points.stream().allMatch(p -> p[1] > 0 && p[2] > 0), "every point has a rate and a time");
        assertEquals(99, (int) points.get(points.size() - 1)[0], "96 + the perturbation: 128 is past the bound");
    }

    @Test
    void socketModeOneWay() throws IOException {
        assertEquals(SizeSchedule.sizes(1, 32, 0).size(), run("socket", socketPort, "-u", "32", "-p", "0", "--one-way").size());
    }

    @Test
    void rmiModeEchoesEachTypeOnWholeElements() throws IOException {
        assertEquals(SizeSchedule.sizes(1, 64, 3).size(), run("rmi", rmiPort, "-u", "64").size());
        List<double[]> doubles = run("rmi", rmiPort, "-u", "64", "--type", "double");
        // 1..8 bytes are one double; each size is measured once
        assertEquals(8, (int) doubles.get(0)[0]);
        assertTrue(doubles.stream().allMatch(p -> ((int) p[0]) % 8 == 0));
        assertEquals(64, (int) doubles.get(doubles.size() - 1)[0]);
        assertTrue(run("rmi", rmiPort, "-u", "64", "--type", "int", "--one-way").size() > 5);
    }

    @Test
    void everyKarmiKernelRunsOnRmi() throws IOException {
        everyKarmiKernelRuns(rmiPort, List.of());
    }

    @Test
    void everyKarmiKernelRunsOnDirmi() throws IOException {
        everyKarmiKernelRuns(dirmiPort, List.of(), "--peer", "dirmi");
    }

    @Test
    void everyKarmiKernelButPingpongRunsOnGrpc() throws IOException {
        everyKarmiKernelRuns(grpcPort, List.of("pingpong"), "--peer", "grpc");
        assertEquals(2, NetPipe.commandLine().execute("kernel", "-h", "127.0.0.1", "-P", String.valueOf(grpcPort), "--peer",
                "grpc", "--kernel", "pingpong", "--obj", "tree15", "-o", dir.resolve("pp.out").toString()),
                "no callbacks on gRPC: said, not faked");
        assertEquals(SizeSchedule.sizes(1, 64, 3).size(), run("rmi", grpcPort, "-u", "64", "--peer", "grpc").size());
    }

    /** gRPC's jars (its API, stubs, shaded Netty and what they need), from this JVM's class path. */
    private static Path[] grpcClasspath() {
        return java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .map(Path::of).toArray(Path[]::new);
    }

    @Test
    void dirmiEchoesArrays() throws IOException {
        assertEquals(SizeSchedule.sizes(1, 64, 3).size(), run("rmi", dirmiPort, "-u", "64", "--peer", "dirmi").size());
        assertTrue(run("rmi", dirmiPort, "-u", "64", "--type", "double", "--one-way", "--peer", "dirmi").size() > 3);
    }

    private void everyKarmiKernelRuns(int port, List<String> without, String... peer) throws IOException {
        String[][] kernels = {{"ping"}, {"ping-ii"}, {"ping-iiff"}, {"obj", "--obj", "int32"}, {"obj", "--obj", "int4null2"},
                {"obj", "--obj", "tree15"}, {"obj", "--obj", "float:50"}, {"pingpong", "--obj", "tree15"},
                {"star", "--obj", "byte:100", "--clients", "3"}};
        for (String[] kernel : kernels) {
            if (without.contains(kernel[0])) {
                continue;
            }
            List<String> args = new ArrayList<>(List.of("--kernel", kernel[0]));
            args.addAll(List.of(kernel).subList(1, kernel.length));
            args.addAll(List.of(peer));
            List<double[]> points = run("kernel", port, args.toArray(String[]::new));
            assertEquals(1, points.size(), String.join(" ", kernel));
            assertTrue(points.get(0)[2] > 0, String.join(" ", kernel));
        }
    }

    @Test
    void aBadObjectIsAUsageErrorNamingIt() {
        assertEquals(2, NetPipe.commandLine().execute("kernel", "-h", "127.0.0.1", "-P", String.valueOf(rmiPort),
                "--kernel", "obj", "--obj", "tree16", "-o", dir.resolve("x.out").toString()));
    }

    @Test
    void aHostileHeaderClosesOnlyItsConnection() throws IOException {
        try (Socket socket = new Socket("127.0.0.1", socketPort)) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(Integer.MAX_VALUE);
            out.writeInt(1);
            out.writeBoolean(false);
            out.flush();
            socket.setSoTimeout(10_000);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            try {
                in.readByte();
                throw new AssertionError("the server answered a 2 GiB message header");
            } catch (EOFException expected) {
                // closed by the server
            }
        }
        socketServer.awaitLine(Pattern.compile(".*out of bounds.*"), Duration.ofSeconds(10));
        assertEquals(SizeSchedule.sizes(1, 8, 0).size(), run("socket", socketPort, "-u", "8", "-p", "0").size());
    }

    /** Runs a client command line; returns np.out's points as (bytes, Mbps, seconds). */
    private List<double[]> run(String mode, int port, String... options) throws IOException {
        Path out = dir.resolve(mode + "-" + System.nanoTime() + ".out");
        List<String> args = new ArrayList<>(List.of(mode, "-h", "127.0.0.1", "-P", String.valueOf(port), "-o", out.toString()));
        args.addAll(List.of(QUICK));
        args.addAll(List.of(options));
        assertEquals(0, NetPipe.commandLine().execute(args.toArray(String[]::new)), String.join(" ", args));
        List<double[]> points = new ArrayList<>();
        for (String line : Files.readAllLines(out)) {
            String[] columns = line.trim().split("\\s+");
            assertEquals(3, columns.length, "np.out has bytes, Mbps, seconds: " + line);
            points.add(new double[] {Double.parseDouble(columns[0]), Double.parseDouble(columns[1]),
                    Double.parseDouble(columns[2])});
        }
        return points;
    }
}
