package io.fastrmi.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several test hosts on one private Ethernet segment, made of Linux network namespaces (needs root and
 * iproute2's {@code ip}).
 *
 * <p>Each host is a namespace with loopback and one interface {@code eth0}, the end of a veth pair
 * whose other end is a port of a bridge. The bridge lives in a "switch" namespace of its own, so
 * nothing at all is created in, or attached to, the machine's real network namespace: the veth pairs
 * are created directly inside the namespaces, and no host has a default route. A JVM in a host can
 * therefore reach only its own loopback and the other test hosts.
 *
 * <p>Names: the switch namespace is {@code frmi-<pid>-<n>} and host {@code h}'s is
 * {@code frmi-<pid>-<n>-h} (pid of the creating JVM, n a per-JVM counter), which lets
 * {@link #cleanupStale()} tell leftovers of dead runs from live networks. Interface names never
 * leave their namespace, so they stay short and fixed ({@code eth0}, {@code br0}, {@code port<i>}).
 *
 * <p>Addresses: host {@code i} (0-based, in the order given) is {@code 10.<200 + pid % 56>.<n % 256>.<i + 1>/24}.
 * These addresses exist only inside this network's own namespaces; the pid and counter only make
 * parallel runs easy to tell apart in logs.
 *
 * <pre>
 * TestNetwork.requireAvailable();
 * try (TestNetwork net = TestNetwork.create("host1", "host2");
 *      ManagedJvm server = JvmLauncher.on(Jdk.of(25)).wrapper(net.exec("host1"))
 *              .jvmArgs(net.jvmFlags("host1")).classpathOf(Server.class).main(Server.class).start()) {
 *     ...
 * }
 * </pre>
 */
public final class TestNetwork implements AutoCloseable {

    /** Every namespace this class makes starts with this. */
    public static final String PREFIX = "frmi-";

    private static final Pattern OUR_NAMESPACE = Pattern.compile("^" + PREFIX + "(\\d+)-(\\d+)(?:-[a-z0-9-]+)?$");
    private static final Pattern OUR_HOSTS_FILE = Pattern.compile("^" + PREFIX + "(\\d+)-(\\d+)-hosts-.*\\.txt$");
    private static final Pattern HOST_NAME = Pattern.compile("^[a-z][a-z0-9-]{0,30}$");
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);
    private static final long PID = ProcessHandle.current().pid();
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final Set<TestNetwork> OPEN = new HashSet<>(); // guarded by itself
    private static boolean shuttingDown; // guarded by OPEN

    static {
        // Close what a test forgot, or what an interrupted run (Ctrl-C, SIGTERM) left open. A SIGKILLed
        // run cannot do this: cleanupStale() in the next create() handles that. Test threads keep
        // running during shutdown, so from here on create() refuses, and close() waits for a build.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            List<TestNetwork> open;
            synchronized (OPEN) {
                shuttingDown = true;
                open = new ArrayList<>(OPEN);
            }
            for (TestNetwork net : open) {
                try {
                    net.close();
                } catch (RuntimeException e) {
                    System.err.println("TestNetwork: cleanup at exit failed: " + e.getMessage());
                }
            }
        }, "fastrmi-testnetwork-cleanup"));
    }

    private final String switchNamespace;
    private final Map<String, String> namespaces; // host name -> namespace, in the order given
    private final Map<String, String> addresses; // host name -> IPv4 address
    // build() and close() run one at a time (synchronized on this), so a close from the shutdown hook
    // cannot miss a namespace that a build is just making.
    private final List<String> created = new ArrayList<>(); // namespaces made so far, to undo
    private boolean closed;
    private volatile Path hostsFile;

    private TestNetwork(int counter, List<String> hosts) {
        String base = PREFIX + PID + "-" + counter;
        this.switchNamespace = base;
        this.namespaces = new LinkedHashMap<>();
        this.addresses = new LinkedHashMap<>();
        String subnet = "10." + (200 + PID % 56) + "." + (counter % 256) + ".";
        for (int i = 0; i < hosts.size(); i++) {
            namespaces.put(hosts.get(i), base + "-" + hosts.get(i));
            addresses.put(hosts.get(i), subnet + (i + 1));
        }
    }

    /** True when this machine can make network namespaces (root, {@code ip} found, a probe namespace works). */
    public static boolean available() {
        return unavailableReason().isEmpty();
    }

    /** Throws, saying what is missing, unless {@link #available()}: tests call this to fail rather than skip. */
    public static void requireAvailable() {
        unavailableReason().ifPresent(reason -> {
            throw new IllegalStateException("TestNetwork is not available on this machine: " + reason);
        });
    }

    /**
     * Makes a network of the given hosts (lower-case names, like {@code host1}; up to 253). Removes
     * the leftovers of dead runs first. If any step fails, everything made so far is removed again.
     */
    public static TestNetwork create(String... hostNames) {
        List<String> hosts = checkHostNames(hostNames);
        cleanupStale();
        TestNetwork net = new TestNetwork(COUNTER.getAndIncrement(), hosts);
        synchronized (OPEN) {
            if (shuttingDown) {
                throw new IllegalStateException("the JVM is shutting down: no new TestNetwork");
            }
            OPEN.add(net);
        }
        try {
            net.build();
            return net;
        } catch (RuntimeException e) {
            try {
                net.close();
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /**
     * Removes every namespace of ours whose creating JVM no longer runs (killing what still runs
     * inside it), and their stale hosts files; returns the namespaces' names. Networks of live JVMs, and
     * other namespaces, are left alone. Liveness is by pid in this machine's pid namespace: a reused pid
     * only delays the cleanup until that process ends.
     */
    public static List<String> cleanupStale() {
        List<String> removed = new ArrayList<>();
        for (String ns : listNamespaces()) {
            Matcher m = OUR_NAMESPACE.matcher(ns);
            if (m.matches() && !isRunning(m.group(1))) {
                deleteNamespace(ns);
                removed.add(ns);
            }
        }
        deleteStaleHostsFiles();
        return removed;
    }

    /** The host names, in the order given to {@link #create}. */
    public List<String> hosts() {
        return List.copyOf(namespaces.keySet());
    }

    /** The host's IPv4 address (exists only inside this network). */
    public String address(String host) {
        return addresses.get(requireHost(host));
    }

    /** The host's network namespace, for {@code ip netns exec} by hand. */
    public String namespace(String host) {
        return namespaces.get(requireHost(host));
    }

    /** The command prefix that runs a command in the host, for {@link JvmLauncher#wrapper}. */
    public String[] exec(String host) {
        return new String[] {ipCommand(), "netns", "exec", namespace(host)};
    }

    /** A hosts file ({@code address name} lines) naming every test host, and localhost. */
    public Path hostsFile() {
        return hostsFile;
    }

    /** JVM flags that make a JVM resolve the test host names through {@link #hostsFile()} (JDK 17+). */
    public String[] jvmFlags() {
        return new String[] {"-Djdk.net.hosts.file=" + hostsFile};
    }

    /**
     * {@link #jvmFlags()}, plus {@code java.rmi.server.hostname} set to the host's address: with the
     * hosts file in use the machine's own host name no longer resolves, and RMI would otherwise
     * advertise that name (or the wrong address) in its stubs.
     */
    public String[] jvmFlags(String host) {
        return new String[] {"-Djdk.net.hosts.file=" + hostsFile, "-Djava.rmi.server.hostname=" + address(host)};
    }

    /**
     * Kills whatever still runs in the hosts, deletes the namespaces (which removes their interfaces
     * and the bridge) and the hosts file. Safe to call more than once.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        // Hosts first: their veth ends take the bridge ports with them.
        for (int i = created.size() - 1; i >= 0; i--) {
            try {
                deleteNamespace(created.get(i));
            } catch (RuntimeException e) {
                failure = addTo(failure, e);
            }
        }
        try {
            if (hostsFile != null) {
                Files.deleteIfExists(hostsFile);
            }
        } catch (IOException e) {
            failure = addTo(failure, new UncheckedIOException("cannot delete " + hostsFile, e));
        }
        synchronized (OPEN) {
            OPEN.remove(this);
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "TestNetwork" + addresses;
    }

    private synchronized void build() {
        if (closed) {
            throw new IllegalStateException("closed before it was built (the JVM is shutting down)");
        }
        String sw = switchNamespace;
        addNamespace(sw);
        ip("-n", sw, "link", "set", "lo", "up");
        ip("-n", sw, "link", "add", "br0", "type", "bridge");
        ip("-n", sw, "link", "set", "br0", "up");
        int port = 0;
        for (String host : namespaces.keySet()) {
            String ns = namespaces.get(host);
            String portName = "port" + port++;
            addNamespace(ns);
            ip("-n", ns, "link", "set", "lo", "up");
            // Made inside the switch namespace with the peer placed straight into the host's, so the
            // pair never appears in the machine's own namespace.
            ip("-n", sw, "link", "add", portName, "type", "veth", "peer", "name", "eth0", "netns", ns);
            ip("-n", sw, "link", "set", portName, "master", "br0");
            ip("-n", sw, "link", "set", portName, "up");
            ip("-n", ns, "addr", "add", addresses.get(host) + "/24", "dev", "eth0");
            ip("-n", ns, "link", "set", "eth0", "up");
        }
        hostsFile = writeHostsFile();
    }

    private void addNamespace(String ns) {
        created.add(ns); // first: a timed-out add may still have made it
        ip("netns", "add", ns);
    }

    private Path writeHostsFile() {
        StringBuilder sb = new StringBuilder("# FastRMI TestNetwork ").append(switchNamespace)
                .append(": these addresses exist only inside its own network namespaces\n")
                .append("127.0.0.1 localhost\n");
        addresses.forEach((host, address) -> sb.append(address).append(' ').append(host).append('\n'));
        try {
            Path file = Files.createTempFile(switchNamespace + "-hosts-", ".txt");
            Files.writeString(file, sb.toString(), StandardCharsets.US_ASCII);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the hosts file", e);
        }
    }

    private String requireHost(String host) {
        if (!namespaces.containsKey(host)) {
            throw new IllegalArgumentException("no host " + host + " in " + hosts());
        }
        return host;
    }

    private static List<String> checkHostNames(String... hostNames) {
        if (hostNames.length == 0 || hostNames.length > 253) {
            throw new IllegalArgumentException("between 1 and 253 hosts, not " + hostNames.length);
        }
        List<String> hosts = new ArrayList<>();
        for (String host : hostNames) {
            if (host == null || !HOST_NAME.matcher(host).matches() || host.equals("localhost")) {
                throw new IllegalArgumentException("bad host name " + host
                        + ": want a lower-case letter, then up to 30 lower-case letters, digits or '-'; not localhost");
            }
            if (hosts.contains(host)) {
                throw new IllegalArgumentException("host " + host + " given twice");
            }
            hosts.add(host);
        }
        return hosts;
    }

    /** Kills the processes left in {@code ns}, then deletes it; a namespace already gone is fine. */
    private static void deleteNamespace(String ns) {
        if (!listNamespaces().contains(ns)) {
            return;
        }
        // A namespace only really goes away once no process is in it.
        for (String pid : ip("netns", "pids", ns).trim().split("\\s+")) {
            if (!pid.isEmpty()) {
                ProcessHandle.of(Long.parseLong(pid)).ifPresent(TestNetwork::kill);
            }
        }
        removeListenerDirectory(ns);
        try {
            ip("netns", "del", ns);
        } catch (IllegalStateException e) {
            // A parallel cleanupStale() may have deleted it in the meantime.
            if (listNamespaces().contains(ns)) {
                throw e;
            }
        }
    }

    /**
     * FastRMI's directory of scope = jvm listeners for this namespace
     * ({@code $TMPDIR/fastrmi-$USER/listeners/net-INODE}): its entries name JVMs that ran in the
     * namespace, and nothing will ever look there again once it is gone.
     */
    private static void removeListenerDirectory(String ns) {
        try {
            Object inode = Files.readAttributes(Path.of("/run/netns", ns), "unix:ino").get("ino");
            Path dir = Path.of(System.getProperty("java.io.tmpdir"), "fastrmi-" + System.getProperty("user.name"),
                    "listeners", "net-" + inode);
            if (Files.isDirectory(dir)) {
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
                    for (Path entry : entries) {
                        Files.deleteIfExists(entry);
                    }
                }
                Files.deleteIfExists(dir);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // left behind: entries of JVMs that are gone count for nothing
        }
    }

    private static boolean isRunning(String pid) {
        return ProcessHandle.of(Long.parseLong(pid)).isPresent();
    }

    private static void deleteStaleHostsFiles() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (var files = Files.list(tmp)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Matcher m = OUR_HOSTS_FILE.matcher(file.getFileName().toString());
                if (m.matches() && !isRunning(m.group(1))) {
                    Files.deleteIfExists(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove stale hosts files from " + tmp, e);
        }
    }

    private static void kill(ProcessHandle process) {
        process.destroyForcibly();
        try {
            process.onExit().get(KILL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("process " + process.pid() + " did not die within " + KILL_TIMEOUT, e);
        }
    }

    private static List<String> listNamespaces() {
        List<String> names = new ArrayList<>();
        // Lines look like "frmi-123-0-a (id: 2)" or just "frmi-123-0-a".
        for (String line : ip("netns", "list").split("\n")) {
            if (!line.isBlank()) {
                names.add(line.trim().split("\\s+")[0]);
            }
        }
        return names;
    }

    private static Optional<String> unavailableReason() {
        if (!System.getProperty("os.name", "").equals("Linux")) {
            return Optional.of("network namespaces need Linux, this is " + System.getProperty("os.name"));
        }
        if (findIp().isEmpty()) {
            return Optional.of("iproute2's ip command was not found on PATH, /usr/sbin or /sbin");
        }
        String uid = effectiveUid();
        if (!uid.equals("0")) {
            return Optional.of("making network namespaces needs root, this JVM runs as uid " + uid);
        }
        String probe = PREFIX + PID + "-" + COUNTER.getAndIncrement();
        try {
            ip("netns", "add", probe);
            ip("netns", "del", probe);
            return Optional.empty();
        } catch (RuntimeException e) {
            try {
                deleteNamespace(probe);
            } catch (RuntimeException ignored) {
                // The first failure is the one to report.
            }
            return Optional.of("a probe namespace could not be made and removed: " + e.getMessage());
        }
    }

    private static String effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[2]; // real, effective, saved, filesystem
                }
            }
            return "unknown (no Uid line in /proc/self/status)";
        } catch (IOException e) {
            return "unknown (" + e + ")";
        }
    }

    private static Optional<Path> findIp() {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        return dirs.stream().filter(dir -> !dir.isEmpty()).map(dir -> Path.of(dir, "ip"))
                .filter(Files::isExecutable).findFirst();
    }

    private static String ipCommand() {
        return findIp().map(Path::toString).orElseThrow(() -> new IllegalStateException("ip command not found"));
    }

    private static String ip(String... args) {
        List<String> command = new ArrayList<>();
        command.add(ipCommand());
        command.addAll(List.of(args));
        return run(command);
    }

    /** Runs a command with a time limit; returns its stdout, or throws with the command line and its stderr. */
    private static String run(List<String> command) {
        String line = String.join(" ", command);
        Process process;
        try {
            process = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run: " + line + ": " + e.getMessage(), e);
        }
        try {
            process.getOutputStream().close();
            CompletableFuture<String> stdout = readInBackground(process.getInputStream());
            CompletableFuture<String> stderr = readInBackground(process.getErrorStream());
            if (!process.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("timed out after " + COMMAND_TIMEOUT + ": " + line);
            }
            String out = stdout.get(5, TimeUnit.SECONDS);
            String err = stderr.get(5, TimeUnit.SECONDS);
            if (process.exitValue() != 0) {
                throw new IllegalStateException("failed (exit " + process.exitValue() + "): " + line
                        + "\nstderr: " + err.strip());
            }
            return out;
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + line, e);
        } catch (IOException | ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException("cannot read the output of: " + line + ": " + e, e);
        }
    }

    private static CompletableFuture<String> readInBackground(InputStream in) {
        Executor daemonThread = task -> {
            Thread t = new Thread(task, "fastrmi-testnetwork-output");
            t.setDaemon(true);
            t.start();
        };
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, daemonThread);
    }

    private static RuntimeException addTo(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
