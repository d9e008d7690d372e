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
 * Which process holds a TCP socket, asked of the kernel: the socket's inode (from this network
 * namespace's tables, {@code /proc/self/net/tcp} and {@code tcp6}, or from sock_diag), against the
 * process's open files ({@code /proc/PID/fd}). What a peer or a file says of a process is only its word: a listener entry
 * naming a JVM, a native address naming the pid whose shared memory it offers.
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

    /** Whether process {@code pid} holds the socket of inode {@code inode} (false when unreadable). */
    static boolean holdsSocket(long pid, long inode) {
        return holdsAnyOf(pid, Set.of(Long.toString(inode)));
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
