package io.fastrmi.optrmi.lean;

import java.io.InputStream;
import java.io.OutputStream;

/** Bytes written, then read by the other end, in one reused buffer: a connection in memory, one thread at both ends. */
public final class MemoryWire {

    private byte[] buf = new byte[1 << 16];
    private int writePos;
    private int readPos;

    public final OutputStream out = new OutputStream() {
        @Override
        public void write(int b) {
            ensure(1);
            buf[writePos++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, buf, writePos, len);
            writePos += len;
        }
    };

    public final InputStream in = new InputStream() {
        @Override
        public int read() {
            return readPos < writePos ? buf[readPos++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (readPos >= writePos) {
                return -1;
            }
            int n = Math.min(len, writePos - readPos);
            System.arraycopy(buf, readPos, b, off, n);
            readPos += n;
            return n;
        }
    };

    private void ensure(int n) {
        if (writePos + n > buf.length) {
            buf = java.util.Arrays.copyOf(buf, Math.max(2 * buf.length, writePos + n));
        }
    }

    /** Empty again (all that was written was read). */
    public void clear() {
        writePos = 0;
        readPos = 0;
    }

    /** The bytes written since the last {@link #clear}. */
    public int written() {
        return writePos;
    }
}
