package io.fastrmi.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real JVMs in network namespaces: one host serves, another reaches it by address and by name. */
class TestNetworkTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    /** Listens on the address in args[0]; answers each connection's first line, forever. */
    public static final class EchoServer {
        public static void main(String[] args) throws Exception {
            try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getByName(args[0]))) {
                System.out.println("READY " + server.getLocalPort());
                while (true) {
                    try (Socket socket = server.accept();
                         BufferedReader in = new BufferedReader(
                                 new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                         PrintWriter out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8)) {
                        out.println("echo " + in.readLine() + " from " + socket.getInetAddress().getHostAddress());
                    }
                }
            }
        }
    }

    /** Connects to port args[0] of each target (address or name) after it and prints "REPLY target answer". */
    public static final class EchoClient {
        public static void main(String[] args) throws Exception {
            int port = Integer.parseInt(args[0]);
            for (int i = 1; i < args.length; i++) {
                try (Socket socket = new Socket()) {
                    socket.connect(new InetSocketAddress(args[i], port), 5_000);
                    socket.setSoTimeout(5_000);
                    PrintWriter out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
                    out.println("hello");
                    BufferedReader in = new BufferedReader(
                            new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                    System.out.println("REPLY " + args[i] + " " + in.readLine());
                }
            }
        }
    }

    /** Prints "ADDR interface address" for every IPv4 address this host has. */
    public static final class ListAddresses {
        public static void main(String[] args) throws Exception {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress address : Collections.list(nif.getInetAddresses())) {
                    if (address instanceof Inet4Address) {
                        System.out.println("ADDR " + nif.getName() + " " + address.getHostAddress());
                    }
                }
            }
        }
    }

    @Test
    @Timeout(60)
    void hostsReachEachOtherByAddressAndByNameAndCloseRemovesEverything() throws Exception {
        TestNetwork.requireAvailable();
        TestNetwork net = TestNetwork.create("a", "b", "c");
        List<String> namespaces = net.hosts().stream().map(net::namespace).collect(Collectors.toList());
        String switchNamespace = net.namespace("a").substring(0, net.namespace("a").length() - "-a".length());
        try {
            assertEquals(List.of("a", "b", "c"), net.hosts());
            assertEquals(3, net.hosts().stream().map(net::address).distinct().count(), net.toString());
            assertTrue(ipNetnsList().containsAll(namespaces), ipNetnsList().toString());
            assertTrue(ipNetnsList().contains(switchNamespace), ipNetnsList().toString());
            System.out.println("network: " + net + ", namespaces " + namespaces);
            String a = net.address("a");
            String b = net.address("b");

            try (ManagedJvm server = jvm(net, "a", EchoServer.class, a);
                 ManagedJvm lister = jvm(net, "b", ListAddresses.class)) {
                int port = Integer.parseInt(server.awaitLine(Pattern.compile("^READY (\\d+)$"), WAIT).group(1));
                try (ManagedJvm client = jvm(net, "b", EchoClient.class, String.valueOf(port), a, "a")) {
                    assertEquals(0, client.awaitExit(WAIT), () -> client.failure("failed").getMessage());
                    client.output().forEach(line -> System.out.println("client in b: " + line));
                    // The server saw b's address, so the connection really crossed from b to a.
                    assertEquals(List.of("REPLY " + a + " echo hello from " + b, "REPLY a echo hello from " + b),
                            client.output());
                }
                assertEquals(0, lister.awaitExit(WAIT), () -> lister.failure("failed").getMessage());
                lister.output().forEach(line -> System.out.println("addresses in b: " + line));
                assertTrue(lister.output().contains("ADDR eth0 " + b), lister.output().toString());
                assertTrue(lister.output().contains("ADDR lo 127.0.0.1"), lister.output().toString());
                assertFalse(lister.output().stream().anyMatch(line -> line.endsWith(" " + a)),
                        lister.output().toString());
            }
        } finally {
            net.close();
        }
        net.close(); // a second close does nothing

        List<String> left = ipNetnsList();
        assertTrue(namespaces.stream().noneMatch(left::contains), "left behind: " + left);
        assertFalse(left.contains(switchNamespace), "left behind: " + left);
        System.out.println("after close, ip netns list: " + left);
        assertFalse(Files.exists(net.hostsFile()), net.hostsFile().toString());
    }

    @Test
    @Timeout(30)
    void cleanupStaleRemovesTheNamespacesOfDeadRunsOnly() throws Exception {
        TestNetwork.requireAvailable();
        Process finished = new ProcessBuilder("true").start();
        assertTrue(finished.waitFor(10, TimeUnit.SECONDS));
        String stale = TestNetwork.PREFIX + finished.pid() + "-0-x"; // as if left by a killed run
        try (TestNetwork live = TestNetwork.create("x")) {
            run("ip", "netns", "add", stale);
            List<String> removed = TestNetwork.cleanupStale();
            assertTrue(removed.contains(stale), removed.toString());
            assertFalse(ipNetnsList().contains(stale), ipNetnsList().toString());
            assertTrue(ipNetnsList().contains(live.namespace("x")), "a live network was removed");
        } finally {
            if (ipNetnsList().contains(stale)) {
                run("ip", "netns", "del", stale);
            }
        }
    }

    @Test
    void badHostNamesAreRejectedBeforeAnythingIsMade() {
        assertThrows(IllegalArgumentException.class, TestNetwork::create);
        assertThrows(IllegalArgumentException.class, () -> TestNetwork.create("a", "a"));
        assertThrows(IllegalArgumentException.class, () -> TestNetwork.create("Host_1"));
        assertThrows(IllegalArgumentException.class, () -> TestNetwork.create("localhost"));
    }

    private static ManagedJvm jvm(TestNetwork net, String host, Class<?> main, String... args) {
        return JvmLauncher.on(Jdk.of(25)).name(main.getSimpleName() + "@" + host).wrapper(net.exec(host))
                .jvmArgs(net.jvmFlags(host)).classpathOf(main).main(main).args(args)
                .timeLimit(Duration.ofSeconds(60)).start();
    }

    /** The names {@code ip netns list} shows. */
    private static List<String> ipNetnsList() throws Exception {
        return run("ip", "netns", "list").lines().map(line -> line.split("\\s+")[0]).collect(Collectors.toList());
    }

    /** Runs a short command (stdout and stderr merged, so small that the pipe never fills) and returns its output. */
    private static String run(String... command) throws Exception {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("did not finish in 10 s: " + String.join(" ", command));
        }
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.exitValue(), String.join(" ", command) + ": " + out);
        return out;
    }
}
