package sun.rmi.transport;

import io.fastrmi.optrmi.lean.LeanObjectOutput;
import io.fastrmi.optrmi.lean.LeanWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.rmi.server.UID;

/**
 * FastRMI's lean format under RMI's own marshal stream: a {@link ConnectionOutputStream} (so RMI's
 * DGC bookkeeping in LiveRef sees what it expects), made once per connection and direction and used
 * for every call, that forwards to the connection's {@link LeanWriter}. Its JDK state is never used:
 * {@code writeObject}, final in ObjectOutputStream, reaches {@link #leanWriteObject} through the
 * agent's advice. Compiled into java.rmi's package by the agent's build and defined there at run
 * time (see {@code io.fastrmi.agent.bootstrap.LeanStreams}); it holds no logic of its own.
 */
final class LeanConnectionOutputStream extends ConnectionOutputStream implements LeanObjectOutput {

    private final LeanWriter writer;
    private final Runnable afterMessage;
    private UID ackID;
    private DGCAckHandler dgcAckHandler;

    /** {@code afterMessage} runs once each message has gone out (it closes a connection whose input failed). */
    LeanConnectionOutputStream(LeanWriter writer, boolean resultStream, Runnable afterMessage) throws IOException {
        super(NoConnection.INSTANCE, resultStream);
        this.writer = writer;
        this.afterMessage = afterMessage;
    }

    @Override
    public void beginMessage() throws IOException {
        ackID = null;
        dgcAckHandler = null;
        writer.beginMessage(this);
    }

    @Override
    public void leanWriteObject(Object obj) throws IOException {
        writer.writeObject(obj, false);
    }

    @Override
    void writeID() throws IOException {
        // A fresh id per reply, as RMI's stream made per call has: the DGC ack names it.
        ackID = new UID();
        ackID.write(this);
    }

    @Override
    void saveObject(Object obj) {
        if (dgcAckHandler == null) {
            dgcAckHandler = new DGCAckHandler(isResultStream() ? ackID : null);
        }
        dgcAckHandler.add(obj);
    }

    @Override
    DGCAckHandler getDGCAckHandler() {
        return dgcAckHandler;
    }

    /** RMI's release of the call's output: the message ends here (RMI flushes the socket after). */
    @Override
    void done() {
        if (dgcAckHandler != null) {
            dgcAckHandler.startTimer();
        }
        try {
            writer.endMessage(false);
        } catch (IOException e) {
            // The writer is broken; the next use of this connection closes it.
        }
        afterMessage.run();
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

    @Override
    public void reset() throws IOException {
        throw new IOException("reset() is not supported by the lean format (a message forgets its objects when it ends)");
    }

    @Override
    public void useProtocolVersion(int version) {
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

    /** The message ends in {@link #done()}; RMI flushes the socket itself. */
    @Override
    public void flush() {
    }

    @Override
    public void close() {
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

    /** What the JDK constructor writes its stream header to, once: nowhere. */
    static final class NoConnection implements Connection {
        static final NoConnection INSTANCE = new NoConnection();

        @Override
        public OutputStream getOutputStream() {
            return OutputStream.nullOutputStream();
        }

        @Override
        public InputStream getInputStream() {
            return InputStream.nullInputStream();
        }

        @Override
        public void releaseInputStream() {
        }

        @Override
        public void releaseOutputStream() {
        }

        @Override
        public boolean isReusable() {
            return false;
        }

        @Override
        public void close() {
        }

        @Override
        public Channel getChannel() {
            return null;
        }
    }
}
