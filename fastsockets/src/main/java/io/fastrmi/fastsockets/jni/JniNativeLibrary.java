package io.fastrmi.fastsockets.jni;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import io.fastrmi.fastsockets.nativelib.Nudge;
import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@code libfastrmi.so} through JNI, for JDKs without FFM (17, 21) and beside it on 22+. The
 * library is loaded once, for the life of the JVM, with {@link System#load}: its {@code JNI_OnLoad}
 * registers {@link JniCalls}' methods, and its own constructor keeps UCX and libfabric off the
 * JVM's signals before they load ({@code native/src/signals.c}). A library of another build is
 * refused here, before any call.
 */
public final class JniNativeLibrary implements NativeLibrary {

    public JniNativeLibrary(Path file) {
        System.load(file.toAbsolutePath().toString());
        int abi = JniCalls.abi();
        if (abi != JniCalls.ABI) {
            throw new UnsatisfiedLinkError(file + " has JNI methods of version " + abi + "; this agent needs version "
                    + JniCalls.ABI + " (a library of another build)");
        }
    }

    @Override
    public String version() {
        return JniCalls.version();
    }

    @Override
    public String ofiVersion() {
        return NativeLibrary.ofiVersionName(JniCalls.ofiVersion());
    }

    @Override
    public String ucxVersion() {
        return JniCalls.ucxVersion();
    }

    @Override
    public NativeTransport openTransport(TransportName transport, int spinMicros, WaitMode wait) throws IOException {
        return JniTransport.open(transport, spinMicros, wait);
    }

    @Override
    public WaitBudget waitBudget(WaitMode wait, long maxSpinNanos) {
        return new JniWaitBudget(wait, maxSpinNanos);
    }

    @Override
    public Nudge openNudge() throws IOException {
        return JniNudge.open();
    }

    @Override
    public boolean socketReadable(int fd) throws IOException {
        return NativeStatus.socketReadable(fd, JniCalls.socketReadable(fd));
    }

    @Override
    public int spinnersMax(int usableCpus) {
        return JniCalls.waitSpinnersMax(usableCpus);
    }

    @Override
    public String statusName(int status) {
        return JniCalls.statusName(status);
    }

    @Override
    public int processUid() {
        return JniCalls.processUid();
    }

    @Override
    public PeerSocket tcpPeer(java.net.InetSocketAddress peer, java.net.InetSocketAddress own) throws IOException {
        byte[] peerIp = peer.getAddress().getAddress();
        byte[] ownIp = own.getAddress().getAddress();
        if (peerIp.length != ownIp.length) {
            return null; // one IPv4, one IPv6: no connection of this host looks so
        }
        long[] found = new long[2];
        byte[] err = JniCalls.errorBuffer();
        int rc = JniCalls.tcpPeer(peerIp, peer.getPort(), ownIp, own.getPort(), found, err);
        if (NativeStatus.ERR_NOT_FOUND.is(rc)) {
            return null;
        }
        if (rc != 0) {
            throw new IOException("cannot learn who owns " + peer + ": "
                    + NativeStatus.failure("fastrmi_tcp_peer", rc, JniCalls.message(err)));
        }
        return new PeerSocket(found[0] & 0xffffffffL, found[1]);
    }

    @Override
    public boolean processHoldsSocket(long pid, long inode) throws IOException {
        byte[] err = JniCalls.errorBuffer();
        int rc = JniCalls.processHoldsSocket(pid, inode, err);
        return NativeStatus.holdsSocket(pid, rc, rc < 0 ? JniCalls.message(err) : null);
    }

    /** A provider's name as the library takes it: NUL-terminated UTF-8. */
    static byte[] cString(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return java.util.Arrays.copyOf(bytes, bytes.length + 1);
    }
}
