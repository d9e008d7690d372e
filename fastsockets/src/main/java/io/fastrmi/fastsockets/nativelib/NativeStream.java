package io.fastrmi.fastsockets.nativelib;

import java.io.IOException;

/**
 * An ordered, reliable, flow-controlled byte stream over a {@link NativeTransport}, with socket
 * semantics: one reader and one writer at a time, blocking with an optional timeout.
 */
public interface NativeStream {

    /**
     * Reads at least one byte, waiting up to {@code timeoutMillis} (0: forever, as SO_TIMEOUT).
     * Returns the count, or -1 at the end of the stream; a {@link java.net.SocketTimeoutException}
     * when the time passed, an {@link IOException} when the stream was aborted or failed.
     */
    int read(byte[] buffer, int offset, int length, int timeoutMillis) throws IOException;

    /**
     * Reads as {@link #read}, after nudging {@code first}'s reader to spin for its data for
     * {@code spinNanos} (woken if it sleeps): in a callback's turns {@code first}'s data comes
     * before this stream's, so this read waits without spinning and leaves the core to that
     * reader. A {@code first} that is closed, or of another library, is not nudged.
     */
    int readAfterNudging(NativeStream first, long spinNanos, byte[] buffer, int offset, int length, int timeoutMillis)
            throws IOException;

    /**
     * Reads as {@link #read}, straight into a primitive array's memory (its elements in native
     * order) from {@code byteOffset}: between 1 and {@code byteLength} bytes, at any byte offset.
     */
    int readArray(Object array, long byteOffset, long byteLength, int timeoutMillis) throws IOException;

    /**
     * When the last read began to wait for its data (System.nanoTime), or 0 when it found its
     * bytes at once (for its reader).
     */
    long lastReadWaitedSince();

    /** Writes every byte, waiting for the reader's credit as long as it takes. */
    void write(byte[] buffer, int offset, int length) throws IOException;

    /**
     * Writes {@code byteLength} bytes of a primitive array's memory from {@code byteOffset} (its
     * elements in native order) as {@link #write} writes a byte array's: straight from the array.
     */
    void writeArray(Object array, long byteOffset, long byteLength) throws IOException;

    /** Bytes a read would return now without waiting. */
    int available();

    /** The peer reads the end of the stream after what was written. */
    void shutdownOutput() throws IOException;

    /** Fails the stream from any thread: blocked and later calls throw at once. */
    void abort();

    /** Frees the stream; calls blocked on it are woken first, with an exception. Idempotent. */
    void close();
}
