package io.fastrmi.fastsockets.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.fastsockets.handshake.SocketOwners;
import java.io.Closeable;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalListenersTest {

    @TempDir
    Path dir;

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** "PID START" of a process that has exited, as an entry names its JVM. */
    private static String deadJvm() throws Exception {
        Process dead = new ProcessBuilder("true").start();
        dead.waitFor();
        return dead.pid() + " " + dead.toHandle().info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    }

    /** "PID START" of this JVM, as an entry names its JVM. */
    private static String thisJvm() {
        return ProcessHandle.current().pid() + " " + ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli();
    }

    /** A real listening socket of this JVM: an entry counts only for a port its JVM holds. */
    private static ServerSocket listen(String address) throws Exception {
        return new ServerSocket(0, 50, InetAddress.getByName(address));
    }

    @Test
    void aRegisteredListenerIsFoundUntilItsRegistrationCloses() throws Exception {
        try (ServerSocket server = listen("0.0.0.0")) {
            int port = server.getLocalPort();
            LocalListeners listeners = new LocalListeners(dir);
            assertFalse(listeners.isListening(LOOPBACK, port));
            Closeable registration = listeners.register(InetAddress.getByName("0.0.0.0"), port);
            assertTrue(listeners.isListening(LOOPBACK, port));
            assertFalse(listeners.isListening(LOOPBACK, port + 1));
            registration.close();
            assertFalse(listeners.isListening(LOOPBACK, port));
        }
    }

    @Test
    void aListenerBoundToOneAddressIsNotFoundAtAnother() throws Exception {
        try (ServerSocket server = listen("127.0.0.2")) {
            LocalListeners listeners = new LocalListeners(dir);
            listeners.register(InetAddress.getByName("127.0.0.2"), server.getLocalPort());
            assertTrue(listeners.isListening(InetAddress.getByName("127.0.0.2"), server.getLocalPort()));
            assertFalse(listeners.isListening(LOOPBACK, server.getLocalPort()));
        }
    }

    @Test
    void closingAnOlderRegistrationLeavesANewerOneOfThePort() throws Exception {
        try (ServerSocket server = listen("127.0.0.1")) {
            int port = server.getLocalPort();
            LocalListeners listeners = new LocalListeners(dir);
            Closeable older = listeners.register(InetAddress.getByName("0.0.0.0"), port);
            listeners.register(InetAddress.getByName("127.0.0.1"), port);
            older.close();
            assertTrue(listeners.isListening(LOOPBACK, port));
        }
    }

    @Test
    void anEntryForAPortItsJvmDoesNotHoldCountsForNothing() throws Exception {
        // A forged entry: this JVM is alive, but the port's listener is another process (or none).
        try (ServerSocket server = listen("0.0.0.0")) {
            int port = server.getLocalPort();
            String self = thisJvm();
            Process other = new ProcessBuilder("sleep", "30").start();
            try {
                String otherJvm = other.pid() + " " + other.toHandle().info().startInstant().orElseThrow().toEpochMilli();
                Files.writeString(dir.resolve("listen-" + port), otherJvm + " 0.0.0.0");
                assertFalse(new LocalListeners(dir).isListening(LOOPBACK, port), "a live process that does not hold the port");
            } finally {
                other.destroy();
            }
            server.close();
            Files.writeString(dir.resolve("listen-" + port), self + " 0.0.0.0");
            assertFalse(new LocalListeners(dir).isListening(LOOPBACK, port), "a port nobody listens on");
        }
    }

    @Test
    void anEntryNamingThePlainProcessThatHoldsThePortCountsForNothing() throws Exception {
        // The forgery: the entry names the very process that listens on the port (here this
        // JVM, with a plain ServerSocket), pid and start time right. Only a lock that process took
        // itself on the port's lock file makes an entry count, and no one can take it in its name.
        try (ServerSocket plain = listen("0.0.0.0")) {
            int port = plain.getLocalPort();
            String self = thisJvm();
            Files.writeString(dir.resolve("listen-" + port), self + " 0.0.0.0");
            assertFalse(new LocalListeners(dir).isListening(LOOPBACK, port), "no lock file");

            Path lockFile = dir.resolve("listen-" + port + ".lock");
            Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), LockHolderMain.class.getName(), lockFile.toString())
                    .redirectErrorStream(true).start();
            try {
                assertEquals("LOCKED", new java.io.BufferedReader(new java.io.InputStreamReader(holder.getInputStream())).readLine());
                assertFalse(new LocalListeners(dir).isListening(LOOPBACK, port), "a lock file another process locked");
            } finally {
                holder.destroyForcibly().waitFor();
            }

            // A link to a file the port's holder does lock: a file of two links is no lock file.
            Path locked = dir.resolve("locked-by-the-plain-server");
            Files.writeString(locked, "x");
            try (var channel = java.nio.channels.FileChannel.open(locked, java.nio.file.StandardOpenOption.READ);
                    var lock = channel.lock(0, Long.MAX_VALUE, true)) {
                assertTrue(SocketOwners.holdsLockOn(ProcessHandle.current().pid(), locked), "the lock is seen on the file itself");
                Files.deleteIfExists(lockFile);
                Files.createLink(lockFile, locked);
                assertFalse(new LocalListeners(dir).isListening(LOOPBACK, port), "a hard link to a file the holder locks");
            }
        }
    }

    @Test
    void theFoldersAreTheUsersOwn() throws Exception {
        Path nested = dir.resolve("listeners").resolve("net-1");
        new LocalListeners(nested).announce(7000, 40000);
        for (Path folder : List.of(nested, nested.getParent())) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)), folder.toString());
        }
    }

    @Test
    void anEntryOfADeadJvmCountsForNothingAndIsRemoved() throws Exception {
        String dead = deadJvm();
        Path entry = Files.writeString(dir.resolve("listen-7000"), dead + " 0.0.0.0");
        Path marker = Files.writeString(dir.resolve("connect-7000-40000"), dead);
        LocalListeners listeners = new LocalListeners(dir);
        assertFalse(listeners.isListening(LOOPBACK, 7000));
        assertFalse(Files.exists(entry));
        assertFalse(listeners.claim(7000, 40000));
        assertFalse(Files.exists(marker));
    }

    @Test
    void theFirstRegistrationRemovesTheEntriesOfDeadJvms() throws Exception {
        String dead = deadJvm();
        Path entry = Files.writeString(dir.resolve("listen-7001"), dead + " 0.0.0.0");
        Path marker = Files.writeString(dir.resolve("connect-7002-40000"), dead);
        LocalListeners listeners = new LocalListeners(dir);
        Path live = Files.writeString(dir.resolve("connect-7003-40000"),
                ProcessHandle.current().pid() + " " + ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli());
        listeners.register(InetAddress.getByName("0.0.0.0"), 7009);
        assertFalse(Files.exists(entry));
        assertFalse(Files.exists(marker));
        assertTrue(Files.exists(live), "a live JVM's marker stays");
    }

    @Test
    void anEntryOfAnotherProcessWithTheSamePidButAnotherStartCountsForNothing() throws Exception {
        Files.writeString(dir.resolve("listen-7000"), ProcessHandle.current().pid() + " 12345 0.0.0.0");
        assertFalse(new LocalListeners(dir).isListening(LOOPBACK, 7000));
    }

    @Test
    void malformedEntriesCountForNothing() throws Exception {
        Files.writeString(dir.resolve("listen-7000"), "garbage");
        Files.writeString(dir.resolve("listen-7001"), "x y z");
        Files.writeString(dir.resolve("connect-7000-40000"), "");
        LocalListeners listeners = new LocalListeners(dir);
        assertFalse(listeners.isListening(LOOPBACK, 7000));
        assertFalse(listeners.isListening(LOOPBACK, 7001));
        assertFalse(listeners.claim(7000, 40000));
    }

    @Test
    void anAnnouncedConnectionIsClaimedOnce() throws Exception {
        LocalListeners listeners = new LocalListeners(dir);
        assertFalse(listeners.claim(7000, 40000), "nothing announced: a plain connection");
        Closeable marker = listeners.announce(7000, 40000);
        assertFalse(listeners.claim(7000, 40001));
        assertTrue(listeners.claim(7000, 40000));
        assertFalse(listeners.claim(7000, 40000), "a marker is taken by its claim");
        marker.close();
    }

    @Test
    void aListenerRegisteringOrClosingRemovesTheMarkersOfItsPort() throws Exception {
        LocalListeners listeners = new LocalListeners(dir);
        listeners.announce(7000, 40000);
        listeners.announce(7001, 40001);
        Closeable registration = listeners.register(InetAddress.getByName("0.0.0.0"), 7000);
        assertFalse(listeners.claim(7000, 40000), "a connection to an earlier listener of the port");
        listeners.announce(7000, 40002);
        registration.close();
        assertFalse(listeners.claim(7000, 40002), "a connection the closed listener never accepted");
        assertTrue(listeners.claim(7001, 40001), "another port's marker stays");
    }

    @Test
    void aMarkerClosedBeforeTheClaimIsGone() throws Exception {
        LocalListeners listeners = new LocalListeners(dir);
        listeners.announce(7000, 40000).close();
        assertFalse(listeners.claim(7000, 40000));
    }
}
