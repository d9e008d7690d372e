package io.fastrmi.optrmi.lean;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.StreamCorruptedException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * One direction's incoming bytes: frames ({@link LeanFormat}) read into a reused buffer, never past
 * a message's last frame. A segment sets a limit that reads may not cross. Every length read off
 * the wire is checked before it sizes anything, and memory grows only as bytes arrive. A large
 * primitive array outside a segment is read from its frames straight into the array, where the
 * reader has a {@link BulkInput}: no copy through this buffer.
 */
final class InBuffer {

    private static final int KEPT_CAPACITY = 4 * LeanFormat.FRAME_TARGET;
    /** Memory for data a peer announced but has not sent yet is given this much at a time. */
    private static final int GROWTH_STEP = 64 * 1024;
    /** An array up to this size is made at once (one copy); a larger one grows as its bytes arrive. */
    private static final int MADE_AT_ONCE = 8 << 20;

    private final InputStream source;
    private byte[] buf;
    private int pos;
    private int end;
    /** The stream offset of buf[0], so segment limits survive compaction. */
    private long base;
    /** The message's last frame has begun (its header read). */
    private boolean inLastFrame;
    /** Bytes of the frame begun last that are not read yet (neither into buf nor into an array). */
    private int frameRest;
    private boolean started;
    private long limit = Long.MAX_VALUE;
    /** buf[pos, fastEnd) may be read with no frame to load and no limit crossed: min(end, limit - base). */
    private int fastEnd;
    private final DescriptorReader descriptorReader;
    private final BulkInput bulk;
    private boolean framingBroken;

    /** Takes the class descriptors of a descriptor frame into the class table. */
    interface DescriptorReader {
        void read(InBuffer frame) throws IOException;
    }

    InBuffer(InputStream source, DescriptorReader descriptorReader, BulkInput bulk) {
        this.source = source;
        this.descriptorReader = descriptorReader;
        this.bulk = bulk;
        this.buf = new byte[8 * 1024];
    }

    /** A buffer over one descriptor frame's bytes, already whole. */
    private InBuffer(byte[] frame) {
        this.source = InputStream.nullInputStream();
        this.descriptorReader = null;
        this.bulk = null;
        this.buf = frame;
        this.end = frame.length;
        this.inLastFrame = true;
        this.started = true;
        this.fastEnd = end;
    }

    /** Bytes read from this direction so far (for serial filters' stream size). */
    long position() {
        return base + pos;
    }

    long limit() {
        return limit;
    }

    /** Reads may not go past {@code newLimit} (a stream offset) until it is set back. */
    void setLimit(long newLimit) {
        limit = newLimit;
        updateFastEnd();
    }

    private void updateFastEnd() {
        fastEnd = (int) Math.max(0, Math.min(end, limit - base));
    }

    /** Bytes readable now without waiting: the rest of the loaded frames, within the limit. */
    int available() {
        return (int) Math.min(end - pos, limit - position());
    }

    /** True when no more data may be read in the current segment. */
    boolean atLimit() {
        return position() >= limit;
    }

    int readByte() throws IOException {
        need(1);
        return buf[pos++];
    }

    /** The next byte, left to be read. */
    int peekByte() throws IOException {
        need(1);
        return buf[pos];
    }

    int readUnsignedByte() throws IOException {
        return readByte() & 0xFF;
    }

    short readShort() throws IOException {
        need(2);
        short v = BigEndian.getShort(buf, pos);
        pos += 2;
        return v;
    }

    int readInt() throws IOException {
        need(4);
        int v = BigEndian.getInt(buf, pos);
        pos += 4;
        return v;
    }

    long readLong() throws IOException {
        need(8);
        long v = BigEndian.getLong(buf, pos);
        pos += 8;
        return v;
    }

    /** An unsigned LEB128 int; more than 5 bytes, or above {@code Integer.MAX_VALUE}, is corrupt. */
    int readVarint() throws IOException {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = readByte();
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                if (value < 0 || shift == 28 && (b & 0x70) != 0) {
                    throw new StreamCorruptedException("lean stream: a count or id over 2^31 - 1");
                }
                return value;
            }
        }
        throw new StreamCorruptedException("lean stream: a varint longer than 5 bytes");
    }

    /** All 32 bits of an unsigned LEB128 (a zigzag-encoded int field). */
    private int readRawVarint32() throws IOException {
        int value = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = readByte();
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new StreamCorruptedException("lean stream: an int field's varint is longer than 5 bytes");
    }

    private long readRawVarint64() throws IOException {
        long value = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            int b = readByte();
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new StreamCorruptedException("lean stream: a long field's varint is longer than 10 bytes");
    }

    /** The inverse of {@link OutBuffer#writePrimFields}: the JDK's big-endian field bytes. */
    void readPrimFields(LeanClass.Slot slot, byte[] fields) throws IOException {
        if (!slot.compact) {
            readFully(fields, 0, slot.primDataSize);
            return;
        }
        char[] codes = slot.primCodes;
        int[] offsets = slot.primOffsets;
        for (int i = 0; i < codes.length; i++) {
            int at = offsets[i];
            char code = codes[i];
            long value = readPrimValue(code);
            switch (code) {
                case 'I', 'F' -> BigEndian.putInt(fields, at, (int) value);
                case 'J', 'D' -> BigEndian.putLong(fields, at, value);
                case 'S', 'C' -> BigEndian.putShort(fields, at, (int) value);
                default -> fields[at] = (byte) value;
            }
        }
    }

    /** One primitive field as {@link OutBuffer#writePrimValue} wrote it. */
    long readPrimValue(char code) throws IOException {
        switch (code) {
            case 'I' -> {
                int v = readRawVarint32();
                return v >>> 1 ^ -(v & 1);
            }
            case 'J' -> {
                long v = readRawVarint64();
                return v >>> 1 ^ -(v & 1);
            }
            case 'D' -> {
                return readLong();
            }
            case 'F' -> {
                return readInt();
            }
            case 'S', 'C' -> {
                return readShort();
            }
            default -> {
                return (byte) readByte();
            }
        }
    }

    void readFully(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int n = loadSome(len);
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    /** One byte, or -1 at the limit or the end of the message. */
    int read() throws IOException {
        if (atLimit() || exhausted()) {
            return -1;
        }
        loadSome(1);
        return buf[pos++] & 0xFF;
    }

    /** Up to len bytes, or -1 at the limit or the end of the message, never waiting once some arrived. */
    int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (atLimit() || exhausted()) {
            return -1;
        }
        int n = loadSome(len);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        return n;
    }

    long skip(long n) throws IOException {
        long skipped = 0;
        while (skipped < n && !atLimit() && !exhausted()) {
            int step = loadSome((int) Math.min(n - skipped, Integer.MAX_VALUE));
            pos += step;
            skipped += step;
        }
        return skipped;
    }

    String readString(int maxChars) throws IOException {
        int header = readVarint();
        int length = header >>> 1;
        if (length > maxChars) {
            throw new StreamCorruptedException("lean stream: a name of " + length + " chars (at most " + maxChars + ")");
        }
        if ((header & 1) == 0) {
            if (end - pos >= length && position() + length <= limit) {
                String s = new String(buf, pos, length, StandardCharsets.ISO_8859_1);
                pos += length;
                return s;
            }
            byte[] bytes = readGrowing(length);
            return new String(bytes, StandardCharsets.ISO_8859_1);
        }
        char[] chars = new char[Math.min(length, GROWTH_STEP)];
        int filled = 0;
        while (filled < length) {
            if (filled == chars.length) {
                chars = java.util.Arrays.copyOf(chars, (int) Math.min(length, 2L * chars.length));
            }
            int n = loadSome(2 * Math.min(length - filled, chars.length - filled)) / 2;
            if (n == 0) {
                need(2);
                n = 1;
            }
            ByteBuffer.wrap(buf, pos, 2 * n).order(ByteOrder.nativeOrder()).asCharBuffer().get(chars, filled, n);
            pos += 2 * n;
            filled += n;
        }
        return new String(chars, 0, length);
    }

    /** Exactly count elements of a primitive array, read in bulk; the array grows as bytes arrive. */
    Object readPrimitiveArray(Class<?> component, int count) throws IOException {
        int size = PrimitiveArrays.elementSize(component);
        int first = (long) count * size <= MADE_AT_ONCE ? count : MADE_AT_ONCE / size;
        Object array = PrimitiveArrays.newArray(component, first);
        int capacity = first;
        int filled = 0;
        while (filled < count) {
            if (filled == capacity) {
                capacity = (int) Math.min(count, 2L * capacity);
                array = copyOf(array, component, capacity);
            }
            int wanted = capacity - filled;
            if (pos == end && mayReadInBulk(component, (long) wanted * size)) {
                filled += readInBulk(array, component, filled, wanted, size);
                continue;
            }
            if (size == 1) {
                int n = loadSome(wanted);
                if (component == byte.class) {
                    System.arraycopy(buf, pos, array, filled, n);
                } else {
                    boolean[] a = (boolean[]) array;
                    for (int i = 0; i < n; i++) {
                        a[filled + i] = buf[pos + i] != 0;
                    }
                }
                pos += n;
                filled += n;
            } else {
                int n = loadSome((int) Math.min((long) wanted * size, Integer.MAX_VALUE)) / size;
                if (n == 0) {
                    need(size);
                    n = 1;
                }
                PrimitiveArrays.copyIn(buf, pos, array, component, filled, n);
                pos += n * size;
                filled += n;
            }
        }
        return array;
    }

    /** Whether this many bytes of an array may be read straight into it: outside a segment, with a bulk input. */
    private boolean mayReadInBulk(Class<?> component, long bytes) {
        return bulk != null && limit == Long.MAX_VALUE && bytes >= LeanFormat.BULK_BYTES_MIN && component != boolean.class;
    }

    /**
     * Up to {@code wanted} elements of an array from {@code index}, read when the buffer has none
     * left: the current frame's bytes that the source holds through the buffer (an element they
     * split completed straight from the transport), the rest of the frame straight into the array.
     * Returns the elements read; 0 leaves the next ones to the copying path (a frame that ends
     * inside an element, the end of the message).
     */
    private int readInBulk(Object array, Class<?> component, int index, int wanted, int size) throws IOException {
        if (frameRest == 0) {
            if (inLastFrame) {
                return 0; // the copying path says the message ended
            }
            // Through the source, which may take the frame's first bytes with it: a header read
            // straight from the transport made a 1 MiB echo slower (journal, 2026-11-28).
            beginFrame();
        }
        int read = 0;
        int held = Math.min(bulk.held(), frameRest);
        if (held > 0) {
            loadFrameBytes(held);
            int split = (end - pos) % size;
            if (split != 0) {
                if (size - split > frameRest) {
                    return 0; // the element goes on in the next frame: the copying path joins them
                }
                readFrameStraight(ensureRoom(size - split), end, size - split);
                end += size - split;
                updateFastEnd();
            }
            read = Math.min((end - pos) / size, wanted);
            copyElements(array, component, index, read);
            if (pos != end) {
                return read; // the array ended inside these bytes
            }
        }
        long bytes = Math.min((long) (wanted - read) * size, frameRest) / size * size;
        if (bytes > 0) {
            compact(); // nothing left to read in the buffer: it starts over after these bytes
            readFrameStraight(array, (long) (index + read) * size, bytes);
            base += bytes;
            read += (int) (bytes / size);
        }
        return read;
    }

    /** n elements from the buffer into the array from index. */
    private void copyElements(Object array, Class<?> component, int index, int n) {
        if (component == byte.class) {
            System.arraycopy(buf, pos, array, index, n);
            pos += n;
        } else {
            PrimitiveArrays.copyIn(buf, pos, array, component, index, n);
            pos += n * PrimitiveArrays.elementSize(component);
        }
    }

    /** The buffer, with room for n bytes after end (what is read already is dropped first). */
    private byte[] ensureRoom(int n) {
        compact();
        if (buf.length - end < n) {
            buf = java.util.Arrays.copyOf(buf, end + n);
        }
        return buf;
    }

    /** {@code bytes} of the current frame (no more than it has left) straight from the transport into an array. */
    private void readFrameStraight(Object array, long byteOffset, long bytes) throws IOException {
        try {
            long done = 0;
            while (done < bytes) {
                long n = bulk.readArray(array, byteOffset + done, bytes - done);
                if (n < 0) {
                    throw frameCutShort();
                }
                done += n;
                frameRest -= (int) n;
            }
        } catch (IOException | RuntimeException e) {
            framingBroken = true; // the frame is partly read: no later byte of this direction can be trusted
            throw e;
        }
    }

    /**
     * Ends the message: what was not read of it (a reader that failed, or read less) is skipped up
     * to its last frame, so the next message starts where the writer started it.
     */
    void endMessage() throws IOException {
        limit = Long.MAX_VALUE;
        if (started) {
            while (!inLastFrame || frameRest > 0) {
                base += end;
                pos = end = 0;
                updateFastEnd();
                loadFrame();
            }
        }
        base += end;
        pos = end = 0;
        updateFastEnd();
        inLastFrame = false;
        started = false;
        if (buf.length > KEPT_CAPACITY) {
            buf = new byte[KEPT_CAPACITY];
        }
    }

    /** Ensures n contiguous readable bytes (n small), loading frames as needed. */
    private void need(int n) throws IOException {
        if (n <= fastEnd - pos) { // one compare on every read: the rest stays out of line
            return;
        }
        needSlowly(n);
    }

    private void needSlowly(int n) throws IOException {
        if (position() + n > limit) {
            throw new EOFException("lean stream: read past the end of a writeObject's or writeExternal's data");
        }
        while (end - pos < n) {
            loadFrame();
        }
    }

    /** Loads a frame if none is loaded; returns how many of wanted bytes are readable now (>= 1). */
    private int loadSome(int wanted) throws IOException {
        if (atLimit()) {
            throw new EOFException("lean stream: read past the end of a writeObject's or writeExternal's data");
        }
        while (end == pos) {
            loadFrame();
        }
        return (int) Math.min(Math.min(wanted, end - pos), limit - position());
    }

    /**
     * Loads the rest of the current data frame, or the next one; descriptor frames before it go to
     * the descriptor reader as they come.
     */
    private void loadFrame() throws IOException {
        if (frameRest == 0) {
            beginFrame();
        }
        loadFrameBytes(frameRest);
    }

    /** Reads the next data frame's header, after any descriptor frames. */
    private void beginFrame() throws IOException {
        if (inLastFrame) {
            throw new EOFException("lean stream: read past the end of the message");
        }
        try {
            started = true;
            int header;
            while (((header = readSourceInt()) & LeanFormat.DESCRIPTOR_FRAME) != 0) {
                int length = frameLength(header);
                if ((header & LeanFormat.LAST_FRAME) != 0) {
                    throw new StreamCorruptedException("lean stream: a descriptor frame marked as a message's last");
                }
                descriptorReader.read(new InBuffer(readSourceBytes(length)));
            }
            frameRest = frameLength(header);
            inLastFrame = (header & LeanFormat.LAST_FRAME) != 0;
        } catch (IOException | RuntimeException e) {
            // Frames or descriptors that do not parse: no later byte of this direction can be trusted.
            framingBroken = true;
            throw e;
        }
    }

    /** Reads {@code count} more bytes of the current frame (no more than it has left) into the buffer. */
    private void loadFrameBytes(int count) throws IOException {
        try {
            compact();
            int remaining = count;
            while (remaining > 0) {
                if (end == buf.length) {
                    long capacity = Math.min((long) end + remaining, Math.max(2L * buf.length, (long) end + Math.min(remaining, GROWTH_STEP)));
                    buf = java.util.Arrays.copyOf(buf, (int) Math.min(capacity, Integer.MAX_VALUE - 8));
                }
                int n = source.read(buf, end, Math.min(remaining, buf.length - end));
                if (n < 0) {
                    throw frameCutShort();
                }
                end += n;
                remaining -= n;
                frameRest -= n;
            }
            updateFastEnd();
        } catch (IOException | RuntimeException e) {
            framingBroken = true;
            throw e;
        }
    }

    private EOFException frameCutShort() {
        return new EOFException("lean stream: the connection ended inside a frame (" + frameRest + " bytes missing)");
    }

    /** Drops what is read from the buffer, so that new bytes go after those still to read. */
    private void compact() {
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, end - pos);
            base += pos;
            end -= pos;
            pos = 0;
            updateFastEnd();
        }
    }

    private static int frameLength(int header) throws StreamCorruptedException {
        int length = header & LeanFormat.FRAME_LENGTH;
        if (length > LeanFormat.MAX_FRAME) {
            throw new StreamCorruptedException("lean stream: a frame of " + length + " bytes (at most " + LeanFormat.MAX_FRAME + ")");
        }
        return length;
    }

    /** A whole frame's bytes, the array growing as they arrive. */
    private byte[] readSourceBytes(int length) throws IOException {
        byte[] bytes = new byte[Math.min(length, GROWTH_STEP)];
        int filled = 0;
        while (filled < length) {
            if (filled == bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, (int) Math.min(length, 2L * bytes.length));
            }
            int n = source.read(bytes, filled, bytes.length - filled);
            if (n < 0) {
                throw new EOFException("lean stream: the connection ended inside a descriptor frame");
            }
            filled += n;
        }
        return bytes;
    }

    /** Whether a frame or a descriptor failed to parse: this direction of the connection is lost. */
    boolean framingBroken() {
        return framingBroken;
    }

    /** True when the message's data is all read (its last frame loaded and consumed). */
    boolean exhausted() {
        return pos == end && inLastFrame && frameRest == 0;
    }

    private int readSourceInt() throws IOException {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int b = source.read();
            if (b < 0) {
                throw new EOFException("lean stream: the connection ended " + (i == 0 ? "before a frame" : "inside a frame header"));
            }
            v = v << 8 | b;
        }
        return v;
    }

    private byte[] readGrowing(int length) throws IOException {
        byte[] bytes = new byte[Math.min(length, GROWTH_STEP)];
        int filled = 0;
        while (filled < length) {
            if (filled == bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, (int) Math.min(length, 2L * bytes.length));
            }
            int n = loadSome(bytes.length - filled);
            System.arraycopy(buf, pos, bytes, filled, n);
            pos += n;
            filled += n;
        }
        return bytes;
    }

    private static Object copyOf(Object array, Class<?> component, int length) {
        Object bigger = PrimitiveArrays.newArray(component, length);
        System.arraycopy(array, 0, bigger, 0, java.lang.reflect.Array.getLength(array));
        return bigger;
    }
}
