package io.fastrmi.fastsockets.jni;

/**
 * The native methods of {@code native/src/jni.c}, registered by its {@code JNI_OnLoad} when {@link
 * JniNativeLibrary} loads the library: each calls one {@code fastrmi_*} function. A context or
 * stream is its address as a positive long; a negative long or int is a {@code FASTRMI_ERR_*}
 * status, with the library's message written into {@code err} (NUL-terminated). The {@code *Now}
 * transfers never wait (timeout 0) and copy straight to or from the array; everything that may wait
 * holds no array. Arrays are primitive arrays, offsets and lengths in bytes, checked by the caller.
 */
final class JniCalls {

    /** The version of this list: jni.c's FR_JNI_ABI. */
    static final int ABI = 2;

    private JniCalls() {
    }

    static native int abi();

    static native String version();

    static native int ofiVersion();

    static native String ucxVersion();

    static native String statusName(int status);

    static native int processUid();

    /** {@code out}: {uid, inode}. */
    static native int tcpPeer(byte[] peerIp, int peerPort, byte[] ownIp, int ownPort, long[] out, byte[] err);

    static native int processHoldsSocket(long pid, long inode, byte[] err);

    static native long ctxOpen(int backend, byte[] provider, int spinMicros, byte[] err);

    static native int ctxSetWait(long ctx, int mode, int usableCpus, byte[] err);

    /** The address's length, or a status. */
    static native int ctxAddress(long ctx, byte[] buffer);

    static native void ctxClose(long ctx);

    static native long ctxPeersLeft(long ctx);

    static native long ctxPeersGone(long ctx);

    static native int ctxPeerCanBlockOthers(long ctx);

    static native int ctxMaySpinOnDeadPeer(long ctx);

    static native int ctxExpectPeer(long ctx, byte[] ip, byte[] err);

    static native long streamOpen(long ctx, byte[] peerAddress, long localId, long peerId, byte[] err);

    static native long recvNow(long stream, Object array, long offset, long length, byte[] err);

    static native long recvReceived(long stream, Object array, long offset, long length);

    static native long sendNow(long stream, Object array, long offset, long length, byte[] err);

    static native long sendFinish(long stream, byte[] err);

    static native long bounceOpen(int bytes);

    static native void bounceClose(long bounce);

    static native long recvBounced(long stream, long bounce, int bounceBytes, Object array, long offset, long length,
            int timeoutMillis, byte[] err);

    static native long sendBounced(long stream, long bounce, int bounceBytes, Object array, long offset, long length,
            byte[] err);

    static native long waitReadable(long stream, int timeoutMillis, boolean afterNudge, byte[] err);

    static native int waitWritable(long stream, int timeoutMillis, byte[] err);

    static native int streamNudge(long stream, long spinNanos);

    static native long available(long stream);

    static native int shutdownWrite(long stream, byte[] err);

    static native void streamAbort(long stream);

    static native void streamClose(long stream);

    static native long waitSpinFor(long[] budget, int mode, long maxSpinNanos);

    static native void waitLearn(long[] budget, long maxSpinNanos, long waitedNanos, boolean answeredSpinning);

    static native int waitMaySpin(int mode, long maxSpinNanos);

    static native int waitSpinnersMax(int usableCpus);

    static native int nudgeOpen(byte[] err);

    static native int nudge(int nudge);

    static native int nudgeClose(int nudge, byte[] err);

    static native int nudgeWait(int fd, int nudge, int timeoutMillis, byte[] err);

    /** No message: a failure is its status alone (the descriptor is not open). */
    static native int socketReadable(int fd);

    /** A message buffer for the calls above. */
    static byte[] errorBuffer() {
        return new byte[512];
    }

    /** The message the library wrote into {@code err}. */
    static String message(byte[] err) {
        int end = 0;
        while (end < err.length && err[end] != 0) {
            end++;
        }
        return new String(err, 0, end, java.nio.charset.StandardCharsets.UTF_8);
    }
}
