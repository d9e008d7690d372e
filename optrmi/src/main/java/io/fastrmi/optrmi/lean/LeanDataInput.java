package io.fastrmi.optrmi.lean;

import java.io.IOException;

/**
 * What a class's readObject or readExternal reads besides objects: primitives and bytes, each within
 * the blocks of the custom data its writer wrote (the JDK's block-data mode, {@link CustomData}),
 * counted for the serial filter as the JDK counts them. Outside any hook they are read as they come.
 * Holds the custom data of the hooks now running, innermost last. One per {@link LeanReader}.
 */
public final class LeanDataInput {

    private final LeanReader reader;
    private final InBuffer in;
    private final JdkFilterModel jdk;
    /** The custom data a hook reads now, or null (none, or an object of it being read). */
    private CustomData current;
    /** Custom data contexts by nesting level, reused. */
    private CustomData[] levels = new CustomData[4];
    private int level;

    LeanDataInput(LeanReader reader, InBuffer in, JdkFilterModel jdk) {
        this.reader = reader;
        this.in = in;
        this.jdk = jdk;
    }

    /** A hook's custom data becomes the current one, one level deeper. */
    CustomData enter(LeanClass.Slot slot, String owner, boolean written) {
        if (level == levels.length) {
            levels = java.util.Arrays.copyOf(levels, 2 * levels.length);
        }
        CustomData data = levels[level];
        if (data == null) {
            data = levels[level] = new CustomData(in, jdk);
        }
        level++;
        current = data.start(slot, owner, written);
        return data;
    }

    /** The hook's data is done: the enclosing hook's (if any) is current again. */
    void leave() {
        level--;
        current = level == 0 ? null : levels[level - 1];
    }

    /** The current custom data, or null; while an object or default fields are read it is set aside ({@link #setCurrent}). */
    CustomData current() {
        return current;
    }

    void setCurrent(CustomData data) {
        current = data;
    }

    /** A message ends: no hook runs. */
    void reset() {
        current = null;
        level = 0;
    }

    public int readByte() throws IOException {
        reader.checkUsable();
        takeBlockData(1);
        int v = in.readByte();
        jdk.blockData(1);
        return v;
    }

    public int readUnsignedByte() throws IOException {
        reader.checkUsable();
        takeBlockData(1);
        int v = in.readUnsignedByte();
        jdk.blockData(1);
        return v;
    }

    public short readShort() throws IOException {
        reader.checkUsable();
        takeBlockData(2);
        short v = in.readShort();
        jdk.blockData(2);
        return v;
    }

    public int readInt() throws IOException {
        reader.checkUsable();
        takeBlockData(4);
        int v = in.readInt();
        jdk.blockData(4);
        return v;
    }

    public long readLong() throws IOException {
        reader.checkUsable();
        takeBlockData(8);
        long v = in.readLong();
        jdk.blockData(8);
        return v;
    }

    public boolean readBoolean() throws IOException {
        return readByte() != 0;
    }

    public char readChar() throws IOException {
        return (char) readShort();
    }

    public int readUnsignedShort() throws IOException {
        return readShort() & 0xFFFF;
    }

    public float readFloat() throws IOException {
        return Float.intBitsToFloat(readInt());
    }

    public double readDouble() throws IOException {
        return Double.longBitsToDouble(readLong());
    }

    public void readFully(byte[] b, int off, int len) throws IOException {
        reader.checkUsable();
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len > 0) {
            takeBlockData(len);
        }
        in.readFully(b, off, len);
        jdk.blockData(len);
    }

    public int read(byte[] b, int off, int len) throws IOException {
        reader.checkUsable();
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (current != null && len > 0) {
            len = (int) current.available(len);
            if (len == 0) {
                return -1; // as the JDK's block-data mode at an object or the end of the data
            }
        }
        int n = in.read(b, off, len);
        jdk.blockData(Math.max(n, 0));
        return n;
    }

    /** One byte, or -1 at the end of the data. */
    public int read() throws IOException {
        reader.checkUsable();
        if (current != null && current.available(1) == 0) {
            return -1;
        }
        int v = in.read();
        jdk.blockData(v < 0 ? 0 : 1);
        return v;
    }

    public long skip(long n) throws IOException {
        reader.checkUsable();
        if (current != null) {
            n = current.available(n);
        }
        long skipped = in.skip(n);
        jdk.blockData(skipped);
        return skipped;
    }

    public int available() {
        if (reader.failedForGood()) {
            return 0;
        }
        return current != null ? (int) Math.min(current.blockLeft(), in.available()) : in.available();
    }

    public String readUTF() throws IOException {
        reader.checkUsable();
        String s;
        if (current != null) {
            takeBlockData(1);
            long outer = in.limit();
            in.setLimit(in.position() + current.blockLeft()); // a string within its block
            try {
                s = in.readString(Integer.MAX_VALUE);
            } finally {
                in.setLimit(outer);
            }
        } else {
            s = in.readString(Integer.MAX_VALUE);
        }
        jdk.blockData(2 + JdkDescriptor.utfLength(s));
        return s;
    }

    /** Before {@code n} bytes of primitive data are read: in a hook's custom data they must be in a block. */
    private void takeBlockData(long n) throws IOException {
        if (current != null) {
            current.take(n);
        }
    }
}
