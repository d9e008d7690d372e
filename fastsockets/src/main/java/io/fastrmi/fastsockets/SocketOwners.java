package io.fastrmi.fastsockets;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * Which process holds a TCP socket, asked of the kernel: the socket's inode from this network
 * namespace's tables ({@code /proc/self/net/tcp}, {@code tcp6}), against the process's open files
 * ({@code /proc/PID/fd}). What a peer or a file says of a process is only its word: a listener entry
 * naming a JVM, a native address naming the pid whose shared memory it offers.
 */
final class SocketOwners {

    private static final String LISTEN = "0A";
    private static final List<String> TABLES = List.of("/proc/self/net/tcp", "/proc/self/net/tcp6");

    private SocketOwners() {
    }

    /** Whether process {@code pid} has a socket open that listens on TCP {@code port} (false when unreadable). */
    static boolean listensOn(long pid, int port) {
        return holdsAnyOf(pid, listeningInodes(port));
    }

    /**
     * Whether process {@code pid} holds the end of a TCP connection of this host that is at
     * {@code end} and connected to {@code otherEnd}: the peer's end of a connection we hold the other
     * end of (false when unreadable).
     */
    static boolean holdsConnection(long pid, InetSocketAddress end, InetSocketAddress otherEnd) {
        Set<String> inodes = new HashSet<>();
        for (String table : TABLES) {
            boolean v6 = table.endsWith("6");
            String local = encoded(end, v6);
            String remote = encoded(otherEnd, v6);
            if (local == null || remote == null) {
                continue;
            }
            for (String line : rows(table)) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length >= 10 && fields[1].equalsIgnoreCase(local) && fields[2].equalsIgnoreCase(remote)
                        && !fields[3].equals(LISTEN)) {
                    inodes.add(fields[9]);
                }
            }
        }
        return holdsAnyOf(pid, inodes);
    }

    /**
     * An address as the kernel's table prints it: the IP's 32-bit words in native (little-endian)
     * order, hex, then ':' and the port in hex. An IPv4 address appears in tcp6 as ::ffff:a.b.c.d (a
     * dual-stack socket's); an IPv6 one has no tcp form (null).
     */
    static String encoded(InetSocketAddress address, boolean v6) {
        byte[] ip = address.getAddress().getAddress();
        if (address.getAddress() instanceof Inet4Address) {
            if (v6) {
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xff;
                mapped[11] = (byte) 0xff;
                System.arraycopy(ip, 0, mapped, 12, 4);
                ip = mapped;
            }
        } else if (!v6) {
            return null;
        }
        byte[] words = new byte[ip.length];
        for (int i = 0; i < ip.length; i += 4) {
            for (int j = 0; j < 4; j++) {
                words[i + j] = ip[i + 3 - j];
            }
        }
        return HexFormat.of().withUpperCase().formatHex(words) + ":" + String.format("%04X", address.getPort());
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
