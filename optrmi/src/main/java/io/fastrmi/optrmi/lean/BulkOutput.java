package io.fastrmi.optrmi.lean;

import java.io.IOException;

/**
 * Where a large primitive array's elements can go straight from the array, with no copy into the
 * writer's buffer on the way (a native stream that copies them once, into the transport's memory).
 */
@FunctionalInterface
public interface BulkOutput {

    /**
     * Writes {@code byteLength} bytes of {@code array} (a primitive array) from {@code byteOffset},
     * in native order, after every byte written to the writer's sink before them, which this flushes
     * first.
     */
    void writeArray(Object array, long byteOffset, long byteLength) throws IOException;
}
