package io.fastrmi.optrmi.lean;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One direction's outgoing bytes: values are encoded into a reused buffer, which goes out as a
 * frame ({@link LeanFormat}) when it fills, on flush, and at the end of a message. While a segment
 * is open its header waits to be patched, so the buffer grows instead of going out. A large
 * primitive array outside a segment ends its frame and goes from the array itself to the
 * {@link BulkOutput}, where the writer has one: no copy into this buffer.
 */
final class OutBuffer {

    private static final int HEADER = 4;
    private static final int KEPT_CAPACITY = 4 * LeanFormat.FRAME_TARGET;

    /**
     * Its frames carry this much: twice the usual frame, so half as many headers, yet well within
     * what a reader keeps between messages. One frame for the whole array had the reader grow and
     * shrink its buffer each message (a 1 MiB echo on shared memory 0.5 ms slower); frames of
     * 252 KiB were no faster than 128 KiB ones.
     */
    static final int BULK_FRAME_BYTES = 2 * LeanFormat.FRAME_TARGET;

    private final OutputStream sink;
    private final BulkOutput bulk;
    /** New class descriptors, sent as a frame of their own before the data frame that uses them. */
    private final OutBuffer descriptors;
    private byte[] buf;
    private int pos = HEADER;
    private int openSegments;

    OutBuffer(OutputStream sink, BulkOutput bulk) {
        this.sink = sink;
        this.bulk = bulk;
        this.buf = new byte[8 * 1024];
        this.descriptors = new OutBuffer();
    }

    /** The descriptor buffer: it holds its bytes until its owner sends a data frame. */
    private OutBuffer() {
        this.sink = null;
        this.bulk = null;
        this.buf = new byte[256];
        this.descriptors = null;
    }

    /** Where a new class's id and descriptor go (see {@link LeanFormat}). */
    OutBuffer descriptors() {
        return descriptors;
    }

    private boolean holds() {
        return sink == null;
    }

    void writeByte(int v) throws IOException {
        room(1);
        buf[pos++] = (byte) v;
    }

    void writeShort(int v) throws IOException {
        room(2);
        BigEndian.putShort(buf, pos, v);
        pos += 2;
    }

    void writeInt(int v) throws IOException {
        room(4);
        BigEndian.putInt(buf, pos, v);
        pos += 4;
    }

    void writeLong(long v) throws IOException {
        room(8);
        BigEndian.putLong(buf, pos, v);
        pos += 8;
    }

    void writeVarint(int v) throws IOException {
        room(5);
        while ((v & ~0x7F) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    void writeVarlong(long v) throws IOException {
        room(10);
        while ((v & ~0x7FL) != 0) {
            buf[pos++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[pos++] = (byte) v;
    }

    /**
     * A class's primitive field bytes (the JDK's big-endian layout): ints and longs as zigzag
     * varints (small values are the common case), the rest as they are.
     */
    void writePrimFields(LeanClass.Slot slot, byte[] fields) throws IOException {
        if (!slot.compact) {
            write(fields, 0, slot.primDataSize);
            return;
        }
        char[] codes = slot.primCodes;
        int[] offsets = slot.primOffsets;
        for (int i = 0; i < codes.length; i++) {
            int at = offsets[i];
            char code = codes[i];
            writePrimValue(code, switch (code) {
                case 'I', 'F' -> BigEndian.getInt(fields, at);
                case 'J', 'D' -> BigEndian.getLong(fields, at);
                case 'S', 'C' -> BigEndian.getShort(fields, at);
                default -> fields[at];
            });
        }
    }

    /**
     * One primitive field (see {@link DirectFields#getPrim} for what {@code value} holds): ints and
     * longs as zigzag varints, the rest big-endian, as in the JDK's field bytes. Fields written one
     * by one in their order give the same bytes as {@link #writePrimFields}.
     */
    void writePrimValue(char code, long value) throws IOException {
        switch (code) {
            case 'I' -> {
                int v = (int) value;
                writeVarint(v << 1 ^ v >> 31);
            }
            case 'J' -> writeVarlong(value << 1 ^ value >> 63);
            case 'D' -> writeLong(value);
            case 'F' -> writeInt((int) value);
            case 'S', 'C' -> writeShort((int) value);
            default -> writeByte((int) value);
        }
    }

    void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int n = Math.min(len, chunkRoom(len));
            System.arraycopy(b, off, buf, pos, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    /** Latin-1 when every char fits a byte, else UTF-16 in native order; the count says which. */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): each char's low byte, what Latin-1 is
    void writeString(String s) throws IOException {
        int length = s.length();
        boolean latin1 = DirectFields.isLatin1(s) || charsFitOneByte(s);
        writeVarint(length << 1 | (latin1 ? 0 : 1));
        if (latin1) {
            int i = 0;
            while (i < length) {
                int n = Math.min(length - i, chunkRoom(length - i));
                s.getBytes(i, i + n, buf, pos);
                pos += n;
                i += n;
            }
        } else {
            int i = 0;
            while (i < length) {
                int n = Math.min(length - i, chunkRoom(2 * (length - i)) / 2);
                ByteBuffer.wrap(buf, pos, 2 * n).order(ByteOrder.nativeOrder()).asCharBuffer().put(s, i, i + n);
                pos += 2 * n;
                i += n;
            }
        }
    }

    private static boolean charsFitOneByte(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0xFF) {
                return false;
            }
        }
        return true;
    }

    /** A primitive array's elements in bulk, native order. */
    void writePrimitiveArray(Object array, Class<?> component, int length) throws IOException {
        if (component == byte.class) {
            write((byte[]) array, 0, length);
            return;
        }
        if (component == boolean.class) {
            boolean[] a = (boolean[]) array;
            int i = 0;
            while (i < length) {
                int n = Math.min(length - i, chunkRoom(length - i));
                for (int end = i + n; i < end; i++) {
                    buf[pos++] = (byte) (a[i] ? 1 : 0);
                }
            }
            return;
        }
        int size = PrimitiveArrays.elementSize(component);
        long bytes = (long) size * length;
        if (bulk != null && openSegments == 0 && bytes >= LeanFormat.BULK_BYTES_MIN) {
            writeInBulk(array, bytes);
            return;
        }
        int i = 0;
        while (i < length) {
            int n = Math.min(length - i, chunkRoom(size * (length - i)) / size);
            PrimitiveArrays.copyOut(array, component, i, n, buf, pos);
            pos += n * size;
            i += n;
        }
    }

    /**
     * A primitive array's bytes straight from the array, in frames of {@link #BULK_FRAME_BYTES}
     * after a frame of what is buffered: a reader with a {@link BulkInput} loads that frame and
     * reads the array's frames straight into the array. Each frame's header goes first, then its
     * part of the array. Not inside a segment, whose length is patched once it is written.
     */
    private void writeInBulk(Object array, long bytes) throws IOException {
        if (pos > HEADER) {
            emit(false);
        }
        long at = 0;
        while (at < bytes) {
            long part = Math.min(bytes - at, BULK_FRAME_BYTES); // whole elements, as the copying path's frames
            emit(false, part);
            bulk.writeArray(array, at, part);
            at += part;
        }
    }

    /** Opens a segment: returns where its header is, to patch in {@link #closeSegment}. */
    int openSegment() throws IOException {
        room(LeanFormat.SEGMENT_HEADER);
        int header = pos;
        pos += LeanFormat.SEGMENT_HEADER;
        openSegments++;
        return header;
    }

    void closeSegment(int header, int handles) {
        BigEndian.putInt(buf, header, pos - header - LeanFormat.SEGMENT_HEADER);
        BigEndian.putInt(buf, header + 4, handles);
        openSegments--;
    }

    /** Opens a block of primitive data inside a segment: returns where its header is, for {@link #closeBlock}. */
    int openBlock() throws IOException {
        room(LeanFormat.BLOCK_HEADER);
        int header = pos;
        buf[pos] = LeanFormat.BLOCK;
        pos += LeanFormat.BLOCK_HEADER;
        return header;
    }

    void closeBlock(int header) {
        BigEndian.putInt(buf, header + 1, pos - header - LeanFormat.BLOCK_HEADER);
    }

    /** Sends what is buffered as a frame that does not end the message, and flushes the sink. */
    void flush() throws IOException {
        if (openSegments == 0 && pos > HEADER) {
            emit(false);
        }
        sink.flush();
    }

    /** Sends the message's last frame (possibly empty), flushing the sink if asked. */
    void endMessage(boolean flushSink) throws IOException {
        if (openSegments != 0) {
            throw new IllegalStateException("a message ended inside a segment");
        }
        emit(true);
        if (flushSink) {
            sink.flush();
        }
        if (buf.length > KEPT_CAPACITY) {
            buf = new byte[KEPT_CAPACITY];
        }
    }

    /** Forgets what is buffered (after a failed write: the connection is going away). */
    void discard() {
        pos = HEADER;
        openSegments = 0;
        descriptors.pos = HEADER;
    }

    private void emit(boolean last) throws IOException {
        emit(last, 0);
    }

    /** Sends the buffered frame, its header counting {@code tail} more bytes that the caller sends after it. */
    private void emit(boolean last, long tail) throws IOException {
        if (descriptors.pos > HEADER) {
            int length = descriptors.pos - HEADER;
            BigEndian.putInt(descriptors.buf, 0, length | LeanFormat.DESCRIPTOR_FRAME);
            sink.write(descriptors.buf, 0, descriptors.pos);
            descriptors.pos = HEADER;
        }
        int length = (int) (pos - HEADER + tail);
        BigEndian.putInt(buf, 0, length | (last ? LeanFormat.LAST_FRAME : 0));
        sink.write(buf, 0, pos);
        pos = HEADER;
    }

    /** Makes room for n contiguous bytes. */
    private void room(int n) throws IOException {
        if (pos + n <= buf.length) {
            return;
        }
        if (!holds() && openSegments == 0 && pos > HEADER && n <= buf.length - HEADER) {
            emit(false);
            if (pos + n <= buf.length) {
                return;
            }
        }
        grow(pos + n);
    }

    /** Room for at least one byte (and as many of wanted as fit), for bulk data that may be split. */
    private int chunkRoom(int wanted) throws IOException {
        int free = buf.length - pos;
        if (free >= wanted) {
            return free;
        }
        if (openSegments > 0 || holds()) {
            grow(pos + wanted);
            return buf.length - pos;
        }
        if (free >= 64) {
            return free; // fill it; the next chunk sends it
        }
        emit(false);
        if (buf.length < LeanFormat.FRAME_TARGET + HEADER) {
            grow(Math.min(LeanFormat.FRAME_TARGET + HEADER, HEADER + wanted));
        }
        return buf.length - pos;
    }

    private void grow(int needed) throws IOException {
        if (needed < 0 || needed > LeanFormat.MAX_FRAME) {
            throw new IOException("one segment of lean data (a writeObject or writeExternal) would exceed "
                    + LeanFormat.MAX_FRAME + " bytes");
        }
        int capacity = (int) Math.min(LeanFormat.MAX_FRAME, Math.max((long) needed, 2L * buf.length));
        buf = java.util.Arrays.copyOf(buf, capacity);
    }
}
