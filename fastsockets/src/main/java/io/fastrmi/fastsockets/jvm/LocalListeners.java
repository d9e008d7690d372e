package io.fastrmi.fastsockets.jvm;

import io.fastrmi.config.AtomicFiles;
import io.fastrmi.fastsockets.handshake.SocketOwners;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The FastRMI listeners of this host, for scope = jvm: a directory (the user's own, one per network
 * namespace, since ports belong to one) where each server socket of a JVM with scope = jvm writes
 * its port, and where a client about to offer to one of them first leaves a marker naming the local
 * port it will connect from. A listener reads an offer only from a connection whose marker it
 * finds, so every other client, and every server that is not a FastRMI listener, sees plain TCP
 * (server-speaks-first protocols included). Each entry names its JVM (pid and start time): an entry
 * whose JVM is gone counts for nothing and is removed by whoever finds it, and one whose JVM does
 * not hold a socket listening on the port and a lock on the entry's lock file ({@code listen-PORT.lock},
 * a file of one link that only the listener opens), both asked of the kernel ({@link SocketOwners}),
 * counts for nothing either: a forged entry, even one naming the plain server that holds the port,
 * cannot make a client offer to a plain server, since no one else can take a lock in its name.
 */
final class LocalListeners {

    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private final Path directory;
    private final String self;
    private final java.util.concurrent.atomic.AtomicBoolean swept = new java.util.concurrent.atomic.AtomicBoolean();
    /** Per port, the entry the kernel confirmed last: a connection to the same listener asks no more. */
    private final Map<Integer, String> confirmed = new ConcurrentHashMap<>();

    /** {@code directory}: private to this user; it is created when first written. */
    LocalListeners(Path directory) {
        this.directory = directory;
        this.self = ProcessHandle.current().pid() + " " + startMillis(ProcessHandle.current());
    }

    /**
     * Says that this JVM listens on {@code port}, bound to {@code bound} (the wildcard, or one address);
     * closing the registration takes it back.
     */
    Closeable register(InetAddress bound, int port) throws IOException {
        Path entry = directory.resolve("listen-" + port);
        String content = self + " " + bound.getHostAddress();
        createDirectory();
        if (swept.compareAndSet(false, true)) {
            removeEntriesOfDeadJvms();
        }
        removeMarkers(port);
        Closeable lock = lockFor(port);
        AtomicFiles.write(entry, content.getBytes(StandardCharsets.US_ASCII), "listen-");
        return () -> {
            // Another JVM may have listened on the port since (after our socket closed): its entry stays.
            if (content.equals(read(entry))) {
                Files.deleteIfExists(entry);
                removeMarkers(port);
            }
            lock.close();
        };
    }

    /**
     * A fresh lock file for {@code port}, locked by this JVM until the returned closeable removes it.
     * Only its holder ever opens it (a POSIX lock ends when its process closes any descriptor of the
     * file); readers ask the kernel about it without opening it.
     */
    private Closeable lockFor(int port) throws IOException {
        Path file = lockFile(port);
        Files.deleteIfExists(file); // a dead listener's, or one a forger made: ours is made new
        FileChannel channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), OWNER_ONLY_FILE);
        try {
            FileLock lock = channel.lock(0, Long.MAX_VALUE, true);
            Object ours = Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS);
            return () -> {
                // Another listener of the port may have made its own since: that one stays.
                if (ours.equals(inodeOf(file))) {
                    Files.deleteIfExists(file);
                }
                lock.release();
                channel.close();
            };
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private Path lockFile(int port) {
        return directory.resolve("listen-" + port + ".lock");
    }

    private static Object inodeOf(Path file) {
        try {
            return Files.getAttribute(file, "unix:ino", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether a live FastRMI JVM with scope = jvm listens on {@code port} and takes connections to {@code address}. */
    boolean isListening(InetAddress address, int port) {
        Path entry = directory.resolve("listen-" + port);
        String content = read(entry);
        String[] fields = fields(content);
        if (fields.length != 3 || !alive(entry, fields) || !holdsPort(content, fields[0], port)) {
            return false;
        }
        try {
            InetAddress bound = InetAddress.getByName(fields[2]);
            return bound.isAnyLocalAddress() || bound.equals(address);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /**
     * The marker of a connection about to be made from {@code localPort} to {@code port}; closing
     * removes it, which only a failed connect does. Once connected, the marker stays until the
     * listener takes it at accept (however late that is, even after the client closed), or until
     * the port's listener registers or closes: a connection it never accepted is gone then.
     */
    Closeable announce(int port, int localPort) throws IOException {
        Path marker = directory.resolve("connect-" + port + "-" + localPort);
        createDirectory();
        Files.writeString(marker, self, StandardCharsets.US_ASCII);
        return () -> Files.deleteIfExists(marker);
    }

    /**
     * Whether the connection from {@code remotePort} (on this host) to {@code port} was announced by
     * a live FastRMI JVM; the marker is taken either way.
     */
    boolean claim(int port, int remotePort) {
        Path marker = directory.resolve("connect-" + port + "-" + remotePort);
        String[] fields = fields(read(marker));
        boolean announced = fields.length == 2 && alive(marker, fields);
        deleteQuietly(marker);
        return announced;
    }

    /**
     * Removes the entries of JVMs that are gone (halted, killed: they could not take theirs back),
     * once per JVM, at its first registration: else they would pile up, one per port.
     */
    private void removeEntriesOfDeadJvms() throws IOException {
        try (java.nio.file.DirectoryStream<Path> entries = Files.newDirectoryStream(directory, "{listen,connect}-*")) {
            for (Path entry : entries) {
                String[] fields = fields(read(entry));
                if (fields.length >= 2) {
                    alive(entry, fields);
                }
            }
        }
    }

    /**
     * Whether the JVM an entry names really listens on the port and holds the port's lock file (the
     * kernel's word, remembered per entry).
     */
    private boolean holdsPort(String content, String pid, int port) {
        if (content.equals(confirmed.get(port))) {
            return true;
        }
        long named = Long.parseLong(pid);
        if (!SocketOwners.listensOn(named, port) || !SocketOwners.holdsLockOn(named, lockFile(port))) {
            return false;
        }
        confirmed.put(port, content);
        return true;
    }

    /** The directory and any parent missing, private to this user (0700) as they are made. */
    private void createDirectory() throws IOException {
        Files.createDirectories(directory, OWNER_ONLY);
    }

    /** Removes the markers of connections to {@code port}: no listener will accept them. */
    private void removeMarkers(int port) throws IOException {
        try (java.nio.file.DirectoryStream<Path> markers = Files.newDirectoryStream(directory, "connect-" + port + "-*")) {
            for (Path marker : markers) {
                deleteQuietly(marker);
            }
        }
    }

    /** Whether the JVM an entry names (pid, start time in ms) still runs; an entry of a dead one is removed. */
    private static boolean alive(Path entry, String[] fields) {
        boolean alive;
        try {
            long pid = Long.parseLong(fields[0]);
            long started = Long.parseLong(fields[1]);
            alive = ProcessHandle.of(pid).map(LocalListeners::startMillis).filter(s -> s == started).isPresent();
        } catch (NumberFormatException e) {
            alive = false;
        }
        if (!alive) {
            deleteQuietly(entry);
        }
        return alive;
    }

    private static long startMillis(ProcessHandle process) {
        return process.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
    }

    /** The entry's content, or null when there is none (or it cannot be read, which counts the same). */
    private static String read(Path entry) {
        try {
            return Files.readString(entry, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return null;
        }
    }

    private static String[] fields(String content) {
        return content == null ? new String[0] : content.trim().split(" ");
    }

    private static void deleteQuietly(Path entry) {
        try {
            Files.deleteIfExists(entry);
        } catch (IOException e) {
            // the entry stays; it names a dead JVM or a used marker, which counts for nothing
        }
    }
}
