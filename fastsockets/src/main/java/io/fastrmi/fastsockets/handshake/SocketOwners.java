package io.fastrmi.fastsockets.handshake;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which process listens on a TCP port, asked of the kernel: the listening sockets' inodes (from this
 * network namespace's tables, {@code /proc/self/net/tcp} and {@code tcp6}), against the process's
 * open files ({@code /proc/PID/fd}; a handshake asks the library the same of one connection's
 * socket: {@code NativeLibrary.processHoldsSocket}); which process holds a lock on a file
 * ({@code /proc/locks}); and when a process started ({@code /proc/PID/stat}). What a peer or a
 * file says of a process is only its word: a listener entry naming a JVM, a native address naming
 * the pid whose shared memory it offers.
 */
public final class SocketOwners {

    private static final String LISTEN = "0A";
    private static final List<String> TABLES = List.of("/proc/self/net/tcp", "/proc/self/net/tcp6");

    private SocketOwners() {
    }

    /** Whether process {@code pid} has a socket open that listens on TCP {@code port} (false when unreadable). */
    public static boolean listensOn(long pid, int port) {
        return holdsAnyOf(pid, listeningInodes(port));
    }

    /** The inodes of the sockets of this network namespace that listen on TCP {@code port}. */
    static Set<String> listeningInodes(int port) {
        Set<String> inodes = new HashSet<>();
        for (String table : TABLES) {
            for (String line : rows(table)) {
                String inode = listenerInode(line, port);
                if (inode != null) {
                    inodes.add(inode);
                }
            }
        }
        return inodes;
    }

    /**
     * The inode of a row of {@code /proc/net/tcp} ("sl local rem st tx:rx tr:when retrnsmt uid timeout
     * inode ...", the local address as HEXIP:HEXPORT) when it is a listener on {@code port}, else null.
     */
    static String listenerInode(String line, int port) {
        String[] fields = line.trim().split("\\s+");
        if (fields.length < 10 || !fields[3].equals(LISTEN)) {
            return null;
        }
        int colon = fields[1].lastIndexOf(':');
        try {
            return colon >= 0 && Integer.parseInt(fields[1].substring(colon + 1), 16) == port ? fields[9] : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * Whether process {@code pid} holds a POSIX lock ({@code FileChannel.lock}) on the file {@code file}
     * (a regular file with one link, not followed if a symbolic link): {@code /proc/locks}' word,
     * which no other process can speak for it. False when anything cannot be read.
     */
    public static boolean holdsLockOn(long pid, Path file) {
        long dev;
        long inode;
        try {
            var attributes = Files.readAttributes(file, "unix:dev,ino,nlink,mode", java.nio.file.LinkOption.NOFOLLOW_LINKS);
            if (((Integer) attributes.get("mode") & 0170000) != 0100000 || (Integer) attributes.get("nlink") != 1) {
                return false; // a link to a file someone else locks, or no file at all
            }
            dev = (Long) attributes.get("dev");
            inode = (Long) attributes.get("ino");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
        String wanted = String.format("%02x:%02x:%d", (dev >>> 8) & 0xfff | (dev >>> 32) & ~0xfffL,
                dev & 0xff | (dev >>> 12) & ~0xffL, inode);
        try {
            for (String line : Files.readAllLines(Path.of("/proc/locks"), StandardCharsets.US_ASCII)) {
                if (lockOf(line, pid, wanted)) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** Whether a line of {@code /proc/locks} ("N: POSIX ADVISORY READ PID MAJ:MIN:INODE START END") is a lock held by {@code pid} on {@code file}. */
    static boolean lockOf(String line, long pid, String file) {
        String[] fields = line.trim().split("\\s+");
        // A waiter's line has "->" after the number: not held.
        return fields.length >= 6 && fields[1].equals("POSIX") && fields[4].equals(Long.toString(pid))
                && fields[5].equalsIgnoreCase(file);
    }

    /**
     * When process {@code pid} started, in clock ticks after the boot ({@code /proc/PID/stat}'s 22nd
     * field): with the pid, which process it is (a later one given the same pid started later).
     * -1 when it cannot be read. Not {@code ProcessHandle.info()}, which also reads the process's
     * command line and looks its user up by name (the system's user directory, per handshake).
     */
    static long startTicks(long pid) {
        try {
            return startTicksOf(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1));
        } catch (IOException | RuntimeException e) {
            return -1; // gone, not ours to read, or no such pid
        }
    }

    /**
     * The start time of a {@code /proc/PID/stat} line ("PID (COMM) STATE PPID ... STARTTIME ..."),
     * or -1. COMM is the process's own choice of up to 15 bytes, spaces and parentheses included:
     * the fields are counted from its last closing parenthesis.
     */
    static long startTicksOf(String stat) {
        int end = stat.lastIndexOf(')');
        if (end < 0) {
            return -1;
        }
        String[] fields = stat.substring(end + 1).trim().split(" ");
        // fields[0] is the 3rd field (the state), so the 22nd is fields[19]
        if (fields.length < 20) {
            return -1;
        }
        try {
            return Long.parseLong(fields[19]);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A table's rows without its header line (none when it cannot be read: no IPv6 here, say). */
    private static List<String> rows(String table) {
        try {
            List<String> lines = Files.readAllLines(Path.of(table), StandardCharsets.US_ASCII);
            return lines.subList(Math.min(1, lines.size()), lines.size());
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Whether process {@code pid} has one of the sockets {@code inodes} open. */
    private static boolean holdsAnyOf(long pid, Set<String> inodes) {
        if (inodes.isEmpty()) {
            return false;
        }
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    continue; // closed while we looked
                }
                if (target.startsWith("socket:[") && target.endsWith("]")
                        && inodes.contains(target.substring("socket:[".length(), target.length() - 1))) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false; // gone, or not ours to look at
        }
        return false;
    }
}
