package io.fastrmi.optrmi.lean;

import java.io.IOException;

/**
 * Where a large primitive array's bytes can be read straight into the array, with no copy through
 * the reader's buffer on the way (a native stream that copies them once, out of the transport's
 * memory). The reader's own source may hold bytes it took from the transport before: those come
 * first, through the source.
 */
public interface BulkInput {

    /** Bytes the reader's source has taken from the transport and not handed out yet. */
    int held();

    /**
     * Reads between 1 and {@code byteLength} bytes into {@code array} (a primitive array) from
     * {@code byteOffset}, in native order, waiting for the first as the source's reads do; -1 at
     * the end of the stream. Called only when {@link #held} is 0.
     */
    long readArray(Object array, long byteOffset, long byteLength) throws IOException;
}
