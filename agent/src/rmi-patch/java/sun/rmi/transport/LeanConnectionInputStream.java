package sun.rmi.transport;

import io.fastrmi.optrmi.lean.InputHold;
import io.fastrmi.optrmi.lean.LeanObjectInput;
import io.fastrmi.optrmi.lean.LeanDataInput;
import io.fastrmi.optrmi.lean.LeanReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.NotActiveException;
import java.io.ObjectInputValidation;
import java.io.ObjectStreamConstants;
import java.util.function.Consumer;

/**
 * FastRMI's lean format under RMI's own unmarshal stream: a {@link ConnectionInputStream} (so
 * LiveRef's DGC bookkeeping works as on stock RMI), made per connection (a second one while a call
 * releases the first, see {@link InputHold}) and used for every call, that forwards to the
 * connection's {@link LeanReader}. {@code readObject},
 * final in ObjectInputStream (and its private readString), reaches {@link #leanReadObject} through the agent's advice; serial
 * filters are the JDK's own fields of this stream, reset per call. Compiled into java.rmi's package
 * by the agent's build and defined there at run time; it holds no logic of its own.
 */
final class LeanConnectionInputStream extends ConnectionInputStream implements LeanObjectInput {

    private static final byte[] STREAM_HEADER = {
        (byte) (ObjectStreamConstants.STREAM_MAGIC >>> 8), (byte) ObjectStreamConstants.STREAM_MAGIC,
        (byte) (ObjectStreamConstants.STREAM_VERSION >>> 8), (byte) ObjectStreamConstants.STREAM_VERSION};

    private final LeanReader reader;
    private final InputHold hold;
    private final LeanDataInput data;
    private final Consumer<Object> resetPerCall;

    /** {@code resetPerCall} gives this stream the state a new one would have (its serial filter, its DGC ack flag). */
    LeanConnectionInputStream(LeanReader reader, Consumer<Object> resetPerCall) throws IOException {
        super(new ByteArrayInputStream(STREAM_HEADER));
        this.reader = reader;
        this.hold = new InputHold(reader);
        this.data = reader.data();
        this.resetPerCall = resetPerCall;
    }

    @Override
    public void beginMessage() throws IOException {
        resetPerCall.accept(this);
        discardRefs();
        hold.begin(this);
    }

    @Override
    public InputHold hold() {
        return hold;
    }

    @Override
    public Object leanReadObject(Class<?> type) throws IOException, ClassNotFoundException {
        return reader.readObject(false, type);
    }

    /** RMI's release of the call's input: after its DGC work, the message ends here unless the free ended it. */
    @Override
    void done(Connection c) {
        try {
            super.done(c);
        } finally {
            discardRefs();
            try {
                hold.released();
            } catch (IOException e) {
                // The reader is broken; the next use of this connection fails and RMI closes it.
            }
        }
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

    /** RMI never closes a call's stream; the connection is RMI's to close. */
    @Override
    public void close() {
        done();
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
