package io.fastrmi.fastsockets.jni;

import io.fastrmi.fastsockets.nativelib.BoundStream;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import java.io.IOException;

/**
 * A libfastrmi stream through JNI ({@link BoundStream} has how reads and writes use the calls). The
 * calls that never wait copy between the library and the array inside a critical region of {@code
 * jni.c}; a bounced stream's buffers are the library's memory, allocated when it opens. Nothing is
 * allocated per call.
 */
final class JniStream extends BoundStream<Object> {

    /** Each direction's buffer outside the heap, on a context never called critically. */
    private static final int BOUNCE_BYTES = 32 * 1024;

    private final long stream;
    private final byte[] readError = JniCalls.errorBuffer();
    private final byte[] writeError = JniCalls.errorBuffer();
    /** 0 where critical copies are safe; else where reads and writes go through. */
    private final long readBounce;
    private final long writeBounce;

    private JniStream(JniTransport transport, long stream, long readBounce, long writeBounce) {
        super(transport, readBounce != 0);
        this.stream = stream;
        this.readBounce = readBounce;
        this.writeBounce = writeBounce;
    }

    static JniStream open(JniTransport transport, long context, byte[] peerAddress, long localId, long peerId,
            boolean critical) throws IOException {
        byte[] err = JniCalls.errorBuffer();
        long stream = JniCalls.streamOpen(context, peerAddress, localId, peerId, err);
        if (stream < 0) {
            throw new IOException("cannot open a " + transport + " stream: "
                    + NativeStatus.failure("fastrmi_stream_open", stream, JniCalls.message(err)));
        }
        if (critical) {
            return new JniStream(transport, stream, 0, 0);
        }
        long readBounce = JniCalls.bounceOpen(BOUNCE_BYTES);
        long writeBounce = readBounce == 0 ? 0 : JniCalls.bounceOpen(BOUNCE_BYTES);
        if (writeBounce == 0) {
            JniCalls.bounceClose(readBounce);
            JniCalls.streamClose(stream);
            throw new IOException("cannot open a " + transport + " stream: no memory for its buffers");
        }
        return new JniStream(transport, stream, readBounce, writeBounce);
    }

    @Override
    protected Object readMemory(byte[] buffer) {
        return buffer;
    }

    @Override
    protected Object writeMemory(byte[] buffer) {
        return buffer;
    }

    @Override
    protected Object arrayMemory(Object array) {
        Class<?> type = array.getClass().getComponentType();
        if (type == null || !type.isPrimitive() || type == boolean.class) {
            throw new IllegalArgumentException("not an array of numbers: " + array.getClass().getName());
        }
        return array;
    }

    @Override
    protected long byteSize(Object array) {
        Class<?> type = array.getClass().getComponentType();
        int elementBytes = type == byte.class ? 1
                : type == short.class || type == char.class ? 2
                : type == int.class || type == float.class ? 4 : 8;
        return (long) elementBytes * java.lang.reflect.Array.getLength(array);
    }

    @Override
    protected long recvNow(Object array, long offset, int length) {
        return readBounce == 0
                ? JniCalls.recvNow(stream, array, offset, length, readError)
                : JniCalls.recvBounced(stream, readBounce, BOUNCE_BYTES, array, offset, length, 0, readError);
    }

    @Override
    protected long recvReceived(Object array, long offset, int length) {
        return JniCalls.recvReceived(stream, array, offset, length);
    }

    @Override
    protected long recvBounced(Object array, long offset, int length, int timeout) {
        return JniCalls.recvBounced(stream, readBounce, BOUNCE_BYTES, array, offset, length, timeout, readError);
    }

    @Override
    protected long waitReadable(int timeout, boolean afterNudge) {
        return JniCalls.waitReadable(stream, timeout, afterNudge, readError);
    }

    @Override
    protected long sendNow(Object array, long offset, long length) {
        return JniCalls.sendNow(stream, array, offset, length, writeError);
    }

    @Override
    protected long sendBounced(Object array, long offset, long length) {
        return JniCalls.sendBounced(stream, writeBounce, BOUNCE_BYTES, array, offset, length, writeError);
    }

    @Override
    protected int waitWritable() {
        return JniCalls.waitWritable(stream, -1, writeError);
    }

    @Override
    protected long sendFinish() {
        return JniCalls.sendFinish(stream, writeError);
    }

    @Override
    protected boolean nudgeReader(long spinNanos) {
        return JniCalls.streamNudge(stream, spinNanos) == 0;
    }

    @Override
    protected long availableNow() {
        return JniCalls.available(stream);
    }

    @Override
    protected int shutdownWrite() {
        return JniCalls.shutdownWrite(stream, writeError);
    }

    @Override
    protected void abortStream() {
        JniCalls.streamAbort(stream);
    }

    @Override
    protected void closeStream() {
        try {
            JniCalls.streamClose(stream);
        } finally {
            JniCalls.bounceClose(readBounce);
            JniCalls.bounceClose(writeBounce);
        }
    }

    @Override
    protected String readMessage() {
        return JniCalls.message(readError);
    }

    @Override
    protected String writeMessage() {
        return JniCalls.message(writeError);
    }
}
