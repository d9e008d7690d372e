package io.fastrmi.optrmi.lean;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.NotActiveException;
import java.io.ObjectInputStream;
import java.io.ObjectInputValidation;

/**
 * An {@link ObjectInputStream} that reads the lean format through a connection's
 * {@link LeanReader}. Made per message; its methods only forward. Serial filters set on it
 * ({@link #setObjectInputFilter}, or {@code jdk.serialFilter} and the filter factory, which the JDK
 * applies to it as to any stream) decide as they do on a JDK stream.
 */
public class LeanObjectInputStream extends ObjectInputStream {

    private final LeanReader reader;

    public LeanObjectInputStream(LeanReader reader) throws IOException {
        super();
        this.reader = reader;
        reader.beginMessage(this);
    }

    /** Ends this message: what was not read of it is skipped, and the reader forgets its objects. */
    public void endMessage() throws IOException {
        reader.endMessage();
    }

    @Override
    protected Object readObjectOverride() throws IOException, ClassNotFoundException {
        return reader.readObject(false);
    }

    @Override
    public Object readUnshared() throws IOException, ClassNotFoundException {
        return reader.readObject(true);
    }

    @Override
    public void defaultReadObject() throws IOException, ClassNotFoundException {
        reader.defaultReadObject();
    }

    @Override
    public GetField readFields() throws IOException, ClassNotFoundException {
        return reader.readFields();
    }

    @Override
    public void registerValidation(ObjectInputValidation obj, int prio) throws NotActiveException, InvalidObjectException {
        reader.registerValidation(obj, prio);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return reader.read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
        return reader.read(buf, off, len);
    }

    @Override
    public int available() {
        return reader.available();
    }

    @Override
    public void close() {
        // The connection's stream stays open: RMI closes the connection.
    }

    @Override
    public boolean readBoolean() throws IOException {
        return reader.readByte() != 0;
    }

    @Override
    public byte readByte() throws IOException {
        return (byte) reader.readByte();
    }

    @Override
    public int readUnsignedByte() throws IOException {
        return reader.readUnsignedByte();
    }

    @Override
    public char readChar() throws IOException {
        return (char) reader.readShort();
    }

    @Override
    public short readShort() throws IOException {
        return reader.readShort();
    }

    @Override
    public int readUnsignedShort() throws IOException {
        return reader.readShort() & 0xFFFF;
    }

    @Override
    public int readInt() throws IOException {
        return reader.readInt();
    }

    @Override
    public long readLong() throws IOException {
        return reader.readLong();
    }

    @Override
    public float readFloat() throws IOException {
        return Float.intBitsToFloat(reader.readInt());
    }

    @Override
    public double readDouble() throws IOException {
        return Double.longBitsToDouble(reader.readLong());
    }

    @Override
    public void readFully(byte[] buf) throws IOException {
        reader.readFully(buf, 0, buf.length);
    }

    @Override
    public void readFully(byte[] buf, int off, int len) throws IOException {
        reader.readFully(buf, off, len);
    }

    @Override
    public int skipBytes(int len) throws IOException {
        return (int) reader.skip(len);
    }

    @Override
    @Deprecated
    public String readLine() throws IOException {
        StringBuilder line = new StringBuilder();
        byte[] one = new byte[1];
        while (reader.read(one, 0, 1) > 0) {
            char c = (char) (one[0] & 0xFF);
            if (c == '\n') {
                return line.toString();
            }
            if (c != '\r') {
                line.append(c);
            }
        }
        if (line.length() == 0) {
            return null;
        }
        return line.toString();
    }

    @Override
    public String readUTF() throws IOException {
        return reader.readUTF();
    }

}
