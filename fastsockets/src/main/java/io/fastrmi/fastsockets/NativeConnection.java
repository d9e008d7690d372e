package io.fastrmi.fastsockets;

import io.fastrmi.fastsockets.nativelib.NativeStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/**
 * A FastSocket's bytes on a native stream, with its TCP socket kept as the control channel: an
 * orderly close sends {@link #BYE} on it after the stream's end, so the peer tells a close from a
 * death (the TCP connection ending without it) and fails its stream at once when the peer dies.
 */
final class NativeConnection {

    static final int BYE = 0x42;

    private final Socket control;
    private final NativeStream stream;
    private final String transport;
    private final Input input = new Input();
    private final Output output = new Output();
    private volatile boolean closing;
    private volatile boolean inputShut;

    NativeConnection(Socket control, NativeStream stream, String transport) {
        this.control = control;
        this.stream = stream;
        this.transport = transport;
    }

    String transport() {
        return transport;
    }

    InputStream input() {
        return input;
    }

    OutputStream output() {
        return output;
    }

    /** Watches the control channel from a daemon thread: its end without BYE is the peer's death. */
    void watch(InputStream controlInput, String peer) {
        Thread watcher = new Thread(() -> {
            int signal;
            try {
                signal = controlInput.read();
            } catch (IOException e) {
                signal = -1;
            }
            if (signal != BYE && !closing) {
                stream.abort();
            }
        }, "fastrmi-control " + peer);
        watcher.setDaemon(true);
        watcher.start();
    }

    void shutdownInput() {
        inputShut = true;
    }

    void shutdownOutput() throws IOException {
        stream.shutdownOutput();
    }

    /** The stream's end, then BYE, then the control socket; a reader blocked here is woken. */
    void close(OutputStream controlOutput) {
        closing = true;
        try {
            stream.shutdownOutput();
            controlOutput.write(BYE);
            controlOutput.flush();
        } catch (IOException ignored) {
            // the peer may be gone already: closing goes on
        }
        stream.close();
    }

    private final class Input extends InputStream {
        private final byte[] one = new byte[1];

        @Override
        public int read() throws IOException {
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (inputShut) {
                return -1;
            }
            return stream.read(b, off, len, control.getSoTimeout());
        }

        @Override
        public int available() {
            return inputShut ? 0 : stream.available();
        }

        @Override
        public void close() throws IOException {
            control.close();
        }
    }

    private final class Output extends OutputStream {
        private final byte[] one = new byte[1];

        @Override
        public void write(int b) throws IOException {
            one[0] = (byte) b;
            stream.write(one, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            stream.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            control.close();
        }
    }
}
