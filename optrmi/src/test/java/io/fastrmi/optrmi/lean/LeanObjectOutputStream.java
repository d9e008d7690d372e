package io.fastrmi.optrmi.lean;

import java.io.IOException;
import java.io.ObjectOutputStream;

/**
 * An {@link ObjectOutputStream} that writes the lean format through a {@link LeanWriter}, for the
 * unit tests that reach the writer without the agent: it forwards as RMI's own lean stream (the
 * agent's {@code LeanConnectionOutputStream}) does, but through {@code writeObjectOverride} rather
 * than the agent's advice. Made per message.
 */
public class LeanObjectOutputStream extends ObjectOutputStream {

    private final LeanWriter writer;

    public LeanObjectOutputStream(LeanWriter writer) throws IOException {
        super();
        this.writer = writer;
        writer.beginMessage(this);
    }

    /** Ends this message: its last frame goes out (flushed) and the writer forgets its objects. */
    public void endMessage() throws IOException {
        writer.endMessage();
    }

    @Override
    protected void writeObjectOverride(Object obj) throws IOException {
        writer.writeObject(obj, false);
    }

    @Override
    public void writeUnshared(Object obj) throws IOException {
        writer.writeObject(obj, true);
    }

    @Override
    public void defaultWriteObject() throws IOException {
        writer.defaultWriteObject();
    }

    @Override
    public PutField putFields() throws IOException {
        return writer.putFields();
    }

    @Override
    public void writeFields() throws IOException {
        writer.writeFields();
    }

    /** Not part of RMI's use; a lean message forgets its objects at its end instead. */
    @Override
    public void reset() throws IOException {
        throw new IOException("reset() is not supported by the lean format (a message forgets its objects when it ends)");
    }

    @Override
    public void useProtocolVersion(int version) {
        // The lean format has one version of its own, settled by the handshake.
    }

    @Override
    public void write(int val) throws IOException {
        writer.writeByte(val);
    }

    @Override
    public void write(byte[] buf) throws IOException {
        writer.write(buf, 0, buf.length);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws IOException {
        writer.write(buf, off, len);
    }

    @Override
    public void flush() throws IOException {
        writer.flush();
    }

    @Override
    public void close() throws IOException {
        writer.flush();
    }

    @Override
    public void writeBoolean(boolean val) throws IOException {
        writer.writeBoolean(val);
    }

    @Override
    public void writeByte(int val) throws IOException {
        writer.writeByte(val);
    }

    @Override
    public void writeShort(int val) throws IOException {
        writer.writeShort(val);
    }

    @Override
    public void writeChar(int val) throws IOException {
        writer.writeChar(val);
    }

    @Override
    public void writeInt(int val) throws IOException {
        writer.writeInt(val);
    }

    @Override
    public void writeLong(long val) throws IOException {
        writer.writeLong(val);
    }

    @Override
    public void writeFloat(float val) throws IOException {
        writer.writeFloat(val);
    }

    @Override
    public void writeDouble(double val) throws IOException {
        writer.writeDouble(val);
    }

    @Override
    public void writeBytes(String str) throws IOException {
        writer.writeBytes(str);
    }

    @Override
    public void writeChars(String str) throws IOException {
        writer.writeChars(str);
    }

    @Override
    public void writeUTF(String str) throws IOException {
        writer.writeUTF(str);
    }
}
