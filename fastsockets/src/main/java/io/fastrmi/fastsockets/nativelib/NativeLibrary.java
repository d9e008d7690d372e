package io.fastrmi.fastsockets.nativelib;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;

/**
 * What FastRMI needs of {@code libfastrmi.so}, whatever binds it: FFM (Java 22+, in the
 * multi-release part of the agent jar, loaded through the system class loader because the boot
 * class path ignores multi-release entries) or JNI (every JDK; {@link NativeLibraries} chooses).
 */
public interface NativeLibrary {

    /** The library's own version. */
    String version();

    /** libfabric's version as loaded, "1.17" ({@link #ofiVersionName}). */
    String ofiVersion();

    /**
     * {@code fastrmi_ofi_version}'s number as said: "1.17", or what 0 means (the library opens
     * libfabric at its first use, and could not).
     */
    static String ofiVersionName(int version) {
        return version == 0 ? "not loadable" : (version >>> 16) + "." + (version & 0xffff);
    }

    /** UCX's version as loaded, "1.13.1". */
    String ucxVersion();

    /**
     * Opens a context of a native transport: ofi with its libfabric provider ("shm", "tcp;ofi_rxm",
     * ...), or ucx on its UCX transports (UCX_TLS, unless the environment sets it; other UCX_*
     * variables apply). A waiting thread waits as {@code wait} says, spinning at most {@code spinMicros}.
     */
    NativeTransport openTransport(TransportName transport, int spinMicros, WaitMode wait) throws java.io.IOException;

    /**
     * A budget of the library's idle strategy ({@code fastrmi_wait_*}) for a wait FastRMI does
     * itself (a TCP socket's read): the same rules as the native streams' waits, learnt per stream.
     */
    WaitBudget waitBudget(WaitMode wait, long maxSpinNanos);

    /** A new {@link Nudge} (an eventfd), to be closed by the caller. */
    Nudge openNudge() throws java.io.IOException;

    /**
     * Whether socket {@code fd} has something to read now (data, its peer's end, an error), looked
     * at without waiting ({@code fastrmi_socket_readable}); an IOException names a descriptor that
     * is not open.
     */
    boolean socketReadable(int fd) throws java.io.IOException;

    /**
     * How many threads of one group of streams may spin at once, for {@code usableCpus} (the JVM's
     * count, a container's quota included).
     */
    int spinnersMax(int usableCpus);

    /** {@code fastrmi_strstatus}: a status's name as the library spells it ("FASTRMI_ERR_PROVIDER"). */
    String statusName(int status);

    /** This process's effective uid. */
    int processUid();

    /**
     * The peer's end of the established TCP connection from {@code peer} to {@code own} on this
     * host, as the kernel keeps it; null when the peer's end is not on this host.
     */
    PeerSocket tcpPeer(java.net.InetSocketAddress peer, java.net.InetSocketAddress own) throws java.io.IOException;

    /**
     * Whether process {@code pid} holds the socket of inode {@code inode} among its open files, as
     * the kernel says ({@code /proc/PID/fd}, read in the library: a JVM's first handshakes paid
     * milliseconds each to do it in Java); false when that process's files cannot be read.
     */
    boolean processHoldsSocket(long pid, long inode) throws java.io.IOException;

    /** A socket of this host: the uid that owns it, and its inode (which process holds it: /proc/PID/fd). */
    record PeerSocket(long uid, long inode) {
    }
}
