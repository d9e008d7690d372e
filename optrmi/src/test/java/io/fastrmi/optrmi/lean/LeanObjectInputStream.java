package io.fastrmi.optrmi.lean;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.NotActiveException;
import java.io.ObjectInputStream;
import java.io.ObjectInputValidation;

/**
 * An {@link ObjectInputStream} that reads the lean format through a {@link LeanReader}, for the
 * unit tests that reach the reader without the agent: it forwards as RMI's own lean stream (the
 * agent's {@code LeanConnectionInputStream}, which {@code LeanStreamsIT} drives) does, but through
 * {@code readObjectOverride} rather than the agent's advice. Made per message. Serial filters set on it
 * ({@link #setObjectInputFilter}, or {@code jdk.serialFilter} and the filter factory, which the JDK
 * applies to it as to any stream) decide as they do on a JDK stream.
 */
public class LeanObjectInputStream extends ObjectInputStream {

    private final LeanReader reader;
    private final LeanDataInput data;

    public LeanObjectInputStream(LeanReader reader) throws IOException {
        super();
        this.reader = reader;
        this.data = reader.data();
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
        return data.read();
    }

    @Override
    public int read(byte[] buf, int off, int len) throws IOException {
        return data.read(buf, off, len);
    }

    @Override
    public int available() {
        return data.available();
    }

    @Override
    public void close() {
        // The connection's stream stays open: RMI closes the connection.
    }

    @Override
    public boolean readBoolean() throws IOException {
        return data.readBoolean();
    }

    @Override
    public byte readByte() throws IOException {
        return (byte) data.readByte();
    }

    @Override
    public int readUnsignedByte() throws IOException {
        return data.readUnsignedByte();
    }

    @Override
    public char readChar() throws IOException {
        return data.readChar();
    }

    @Override
    public short readShort() throws IOException {
        return data.readShort();
    }

    @Override
    public int readUnsignedShort() throws IOException {
        return data.readUnsignedShort();
    }

    @Override
    public int readInt() throws IOException {
        return data.readInt();
    }

    @Override
    public long readLong() throws IOException {
        return data.readLong();
    }

    @Override
    public float readFloat() throws IOException {
        return data.readFloat();
    }

    @Override
    public double readDouble() throws IOException {
        return data.readDouble();
    }

    @Override
    public void readFully(byte[] buf) throws IOException {
        data.readFully(buf, 0, buf.length);
    }

    @Override
    public void readFully(byte[] buf, int off, int len) throws IOException {
        data.readFully(buf, off, len);
    }

    @Override
    public int skipBytes(int len) throws IOException {
        return (int) data.skip(len);
    }

    @Override
    @Deprecated
    public String readLine() throws IOException {
        throw new IOException("readLine() is not supported by the lean format");
    }

    @Override
    public String readUTF() throws IOException {
        return data.readUTF();
    }

}
