package io.fastrmi.fastsockets.nativelib;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * The native context addresses a peer sends (see {@code fastrmi.h}), checked field by field before
 * the library sees one. Three kinds, by first byte:
 * <ul>
 * <li>{@code 'O'} libfabric: wait mode, pid and doorbell number (u32 each, native order), name length
 * (u16), then the endpoint name: shm's {@code "fi_shm://fastrmi-nsNS-PID-R:N:N\0"} (doorbell mode 1,
 * PID the header's; the library checks NS, its own pid namespace) or a {@code sockaddr_in}/{@code sockaddr_in6} with a port (mode 0, pid and number 0);
 * <li>{@code 'U'} a UCX worker (shared memory only): pid and number (u32 each, native order) of the
 * file in this user's own folder ({@code /dev/shm/fastrmi-UID/ucx-nsNS-PID-N}) that holds its address,
 * which is opaque to us and so never read off the wire; taken only from a process of this user,
 * which the caller checks with the kernel;
 * <li>{@code 'S'} a UCX listener: a port (u16, network order) and an IP version (4 or 6). The peer is
 * reached at the IP of the connection the two negotiated on: {@link #checked} appends it, so no IP
 * is ever taken from the peer.
 * </ul>
 */
public final class NativeAddresses {

    private static final int OFI_HEADER = 12;
    private static final int UCX_WORKER = 9;
    private static final int SOCKADDR_IN = 16;
    private static final int SOCKADDR_IN6 = 28;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int MAX = 4096;
    private static final Pattern SHM_NAME = Pattern.compile(
            "fi_shm://fastrmi-ns[0-9]{1,20}-([0-9]{1,10})-[0-9]{1,10}:[0-9]{1,10}:[0-9]{1,10}");

    private NativeAddresses() {
    }

    /** A peer's address that is not one this JVM can use; the message says what is wrong. */
    public static final class InvalidAddressException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidAddressException(String message) {
            super(message);
        }
    }

    /** Whether an address of this kind is opaque and must come from a process of this user. */
    public static boolean needsSameUser(byte[] address) {
        return address.length > 0 && address[0] == 'U';
    }

    /**
     * The bytes to give the library for a peer's {@code address}, checked: the address itself, or for
     * a UCX listener its port and {@code peerIp}, the IP of the connection to the peer.
     */
    public static byte[] checked(byte[] address, InetAddress peerIp) throws InvalidAddressException {
        if (address.length == 0 || address.length > MAX) {
            throw new InvalidAddressException("a native address of " + address.length + " bytes (1 to " + MAX + ")");
        }
        return switch (address[0]) {
            case 'O' -> checkedOfi(address);
            case 'U' -> checkedUcxWorker(address);
            case 'S' -> reachedAt(address, peerIp);
            default -> throw new InvalidAddressException(String.format("a native address of unknown kind 0x%02x",
                    address[0] & 0xff));
        };
    }

    /**
     * The process a checked shared-memory address names as its own (whose doorbell, region or UCX
     * worker file it is), or 0 for a socket address: the caller makes sure it is the peer's.
     */
    public static long namedProcess(byte[] checked) {
        ByteBuffer fields = ByteBuffer.wrap(checked).order(ByteOrder.nativeOrder());
        if (checked[0] == 'O' && checked[1] == 1 || checked[0] == 'U') {
            return Integer.toUnsignedLong(fields.getInt(checked[0] == 'O' ? 2 : 1));
        }
        return 0;
    }

    /** The socket address in a libfabric address of mode 0 (tcp, verbs, ...), or null for shm's. */
    public static InetSocketAddress ofiSocketAddress(byte[] checkedOfi) {
        if (checkedOfi[1] != 0) {
            return null;
        }
        ByteBuffer name = ByteBuffer.wrap(checkedOfi, OFI_HEADER, checkedOfi.length - OFI_HEADER);
        int port = Short.toUnsignedInt(name.order(ByteOrder.BIG_ENDIAN).getShort(OFI_HEADER + 2));
        byte[] ip = checkedOfi.length == OFI_HEADER + SOCKADDR_IN
                ? Arrays.copyOfRange(checkedOfi, OFI_HEADER + 4, OFI_HEADER + 8)
                : Arrays.copyOfRange(checkedOfi, OFI_HEADER + 8, OFI_HEADER + 24);
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an IP of " + ip.length + " bytes", e);
        }
    }

    private static byte[] checkedOfi(byte[] a) throws InvalidAddressException {
        if (a.length < OFI_HEADER) {
            throw new InvalidAddressException("a libfabric address of " + a.length + " bytes, shorter than its header");
        }
        ByteBuffer header = ByteBuffer.wrap(a).order(ByteOrder.nativeOrder());
        int mode = a[1];
        long pid = Integer.toUnsignedLong(header.getInt(2));
        long bell = Integer.toUnsignedLong(header.getInt(6));
        int nameLength = Short.toUnsignedInt(header.getShort(10));
        if (nameLength != a.length - OFI_HEADER) {
            throw new InvalidAddressException("a libfabric address whose name length " + nameLength + " is not the "
                    + (a.length - OFI_HEADER) + " bytes that follow");
        }
        if (mode == 1) {
            checkShmName(a, pid, bell);
        } else if (mode == 0) {
            if (pid != 0 || bell != 0) {
                throw new InvalidAddressException("a libfabric socket address with a doorbell (pid " + pid + ")");
            }
            checkSockaddr(a);
        } else {
            throw new InvalidAddressException("a libfabric address of wait mode " + mode + " (0 or 1)");
        }
        return a.clone();
    }

    private static void checkShmName(byte[] a, long pid, long bell) throws InvalidAddressException {
        if (pid == 0 || bell == 0) {
            throw new InvalidAddressException("a libfabric shm address without a doorbell");
        }
        if (a.length == OFI_HEADER || a[a.length - 1] != 0) {
            throw new InvalidAddressException("a libfabric shm name that is empty or does not end in NUL");
        }
        String name = new String(a, OFI_HEADER, a.length - OFI_HEADER - 1, StandardCharsets.ISO_8859_1);
        var matcher = SHM_NAME.matcher(name);
        if (!matcher.matches() || !matcher.group(1).equals(Long.toString(pid))) {
            throw new InvalidAddressException("a libfabric shm name that is not fi_shm://fastrmi-nsNS-" + pid + "-R:N:N");
        }
    }

    private static void checkSockaddr(byte[] a) throws InvalidAddressException {
        int length = a.length - OFI_HEADER;
        if (length != SOCKADDR_IN && length != SOCKADDR_IN6) {
            throw new InvalidAddressException("a libfabric socket address of " + length
                    + " bytes (a sockaddr_in of 16 or sockaddr_in6 of 28)");
        }
        int family = Short.toUnsignedInt(ByteBuffer.wrap(a).order(ByteOrder.nativeOrder()).getShort(OFI_HEADER));
        int port = Short.toUnsignedInt(ByteBuffer.wrap(a).order(ByteOrder.BIG_ENDIAN).getShort(OFI_HEADER + 2));
        boolean shaped = family == AF_INET && length == SOCKADDR_IN && zero(a, OFI_HEADER + 8, OFI_HEADER + 16)
                || family == AF_INET6 && length == SOCKADDR_IN6;
        if (!shaped) {
            throw new InvalidAddressException("a libfabric socket address of family " + family + " and " + length
                    + " bytes (a sockaddr_in of 16 or sockaddr_in6 of 28)");
        }
        if (port == 0) {
            throw new InvalidAddressException("a libfabric socket address without a port");
        }
        InetAddress ip = ofiSocketAddress(a).getAddress();
        if (ip.isAnyLocalAddress() || ip.isMulticastAddress()) {
            throw new InvalidAddressException("a libfabric socket address of " + ip.getHostAddress()
                    + ", which is no host's");
        }
    }

    private static byte[] checkedUcxWorker(byte[] a) throws InvalidAddressException {
        if (a.length != UCX_WORKER) {
            throw new InvalidAddressException("a UCX worker reference of " + a.length + " bytes (" + UCX_WORKER
                    + ": 'U', pid, number)");
        }
        ByteBuffer fields = ByteBuffer.wrap(a).order(ByteOrder.nativeOrder());
        if (fields.getInt(1) == 0 || fields.getInt(5) == 0) {
            throw new InvalidAddressException("a UCX worker reference to pid " + Integer.toUnsignedLong(fields.getInt(1))
                    + ", number " + Integer.toUnsignedLong(fields.getInt(5)));
        }
        return a.clone();
    }

    private static byte[] reachedAt(byte[] a, InetAddress peerIp) throws InvalidAddressException {
        if (a.length != 4) {
            throw new InvalidAddressException("a UCX listener address of " + a.length + " bytes (4: 'S', port, version)");
        }
        int port = Short.toUnsignedInt(ByteBuffer.wrap(a).getShort(1));
        int version = a[3];
        if (port == 0 || version != 4 && version != 6) {
            throw new InvalidAddressException("a UCX listener address of port " + port + ", IP version " + version);
        }
        byte[] ip = peerIp.getAddress();
        if (version == 4 != peerIp instanceof Inet4Address || version == 6 != peerIp instanceof Inet6Address) {
            throw new InvalidAddressException("a UCX listener on IPv" + version + ", but the peer is at "
                    + peerIp.getHostAddress());
        }
        byte[] reached = Arrays.copyOf(a, 4 + ip.length);
        System.arraycopy(ip, 0, reached, 4, ip.length);
        return reached;
    }

    private static boolean zero(byte[] a, int from, int to) {
        for (int i = from; i < to; i++) {
            if (a[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
