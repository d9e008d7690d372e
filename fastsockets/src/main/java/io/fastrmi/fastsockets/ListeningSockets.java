package io.fastrmi.fastsockets;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which process holds a listening TCP port, asked of the kernel: the socket inodes listening on the
 * port ({@code /proc/self/net/tcp}, {@code tcp6}: this network namespace) against the process's open
 * files ({@code /proc/PID/fd}). A file that names a JVM as a port's listener is only its word.
 */
final class ListeningSockets {

    private static final String LISTEN = "0A";

    private ListeningSockets() {
    }

    /** Whether process {@code pid} has a socket open that listens on TCP {@code port} (false when unreadable). */
    static boolean heldBy(long pid, int port) {
        Set<String> inodes = listeningInodes(port);
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

    /** The inodes of the sockets of this network namespace that listen on TCP {@code port}. */
    static Set<String> listeningInodes(int port) {
        Set<String> inodes = new HashSet<>();
        for (String table : List.of("/proc/self/net/tcp", "/proc/self/net/tcp6")) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(table), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                continue; // no IPv6 here, say
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
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
}
