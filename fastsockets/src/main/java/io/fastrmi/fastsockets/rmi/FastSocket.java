package io.fastrmi.fastsockets.rmi;

import io.fastrmi.fastsockets.handshake.ControlConnection;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.fastsockets.handshake.NegotiatedSocket;
import io.fastrmi.fastsockets.handshake.SocketTransport;
import io.fastrmi.fastsockets.handshake.Negotiator;
import io.fastrmi.fastsockets.jvm.JvmScope;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.transport.NativeConnection;
import io.fastrmi.fastsockets.transport.SocketDescriptors;
import io.fastrmi.fastsockets.transport.TcpWaits;
import io.fastrmi.optrmi.lean.BulkInput;
import io.fastrmi.optrmi.lean.BulkOutput;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.function.IntSupplier;

/**
 * A socket of RMI's that FastRMI made. On the client it is returned after the handshake; on the
 * server, the handshake is detected and answered on the first read of its input stream (never in
 * {@code accept()}, so a silent client cannot stall the accept loop), and a client that offers
 * nothing sees plain RMI.
 */
public class FastSocket extends Socket implements NegotiatedSocket {

    private final boolean serverSide;
    private volatile Handshake.Answer answer;
    private volatile NativeConnection nativeConnection;
    private InputStream input;
    private OutputStream output;
    /** SO_TIMEOUT as last set, read by every native read without asking the socket. */
    private volatile int soTimeout;
    /** The lean format's streams of this connection, made by the agent on its first call. */
    private volatile Object leanStreams;

    /** An unconnected socket; {@code serverSide}: for {@code ServerSocket.implAccept}. */
    static FastSocket create(boolean serverSide) throws java.net.SocketException {
        java.net.SocketImpl platform = JvmScope.platformImplForRmi(false);
        return platform == null ? new FastSocket(serverSide) : new FastSocket(platform, serverSide);
    }

    private FastSocket(boolean serverSide) {
        this.serverSide = serverSide;
    }

    /** Under scope = jvm: the JDK's implementation, as RMI's sockets negotiate for themselves. */
    private FastSocket(java.net.SocketImpl platform, boolean serverSide) throws java.net.SocketException {
        super(platform);
        this.serverSide = serverSide;
    }

    /** Whether this connection was negotiated fast: both ends run FastRMI and may use its optimizations. */
    public boolean negotiatedFast() {
        Handshake.Answer a = answer;
        return a != null && a.fast();
    }

    @Override
    public SocketTransport negotiatedTransport() {
        Handshake.Answer a = answer;
        return a == null ? SocketTransport.NOT_NEGOTIATED : SocketTransport.negotiated(a.transport().name());
    }

    /** Whether both ends agreed on the lean wire format for this connection's RMI calls. */
    public boolean negotiatedLean() {
        Handshake.Answer a = answer;
        return a != null && a.fast() && io.fastrmi.optrmi.Optimization.leanFormat(a.optimizations());
    }

    /** The lean format's per-connection streams (the agent's), or null before the first call. */
    public Object leanStreams() {
        return leanStreams;
    }

    public void leanStreams(Object streams) {
        leanStreams = streams;
    }

    /** The handshake's answer, or null for a connection without one. */
    public Handshake.Answer answer() {
        return answer;
    }

    /** This socket as a negotiation sees it. */
    Negotiator.Connection negotiation() {
        return new Negotiator.Connection() {
            @Override
            public String peer() {
                return Negotiator.peerOf(FastSocket.this);
            }

            @Override
            public InputStream rawInput() throws IOException {
                return FastSocket.super.getInputStream();
            }

            @Override
            public OutputStream rawOutput() throws IOException {
                return rawOutputStream();
            }

            @Override
            public ControlConnection control() {
                return ControlConnection.of(FastSocket.this);
            }

            @Override
            public int readTimeout() throws IOException {
                return getSoTimeout();
            }

            @Override
            public void readTimeout(int millis) throws IOException {
                setSoTimeout(millis);
            }

            @Override
            public boolean isClosed() {
                return FastSocket.this.isClosed();
            }

            @Override
            public void negotiated(Handshake.Answer negotiated, NativeStream stream) throws IOException {
                answer = negotiated;
                if (stream != null) {
                    attach(stream, negotiated.transport().name().toString());
                }
            }

            @Override
            public void close() throws IOException {
                FastSocket.this.close();
            }
        };
    }

    // Classes, not lambdas or method references, on a connection's first steps: each would cost the
    // JVM a class spun at its first use (StartupIT).
    final IntSupplier readTimeout = new IntSupplier() {
        @Override
        public int getAsInt() {
            return soTimeoutMillis();
        }
    };
    final IntSupplier descriptor = new IntSupplier() {
        @Override
        public int getAsInt() {
            return descriptorNumber();
        }
    };
    /** The socket's descriptor number once read (-1: not yet, or none to read). */
    private volatile int descriptorNumber = -1;

    /**
     * The socket's descriptor number, or -1: read through the JDK's internals once, as it stays
     * while the socket is open (a read costs reflection, microseconds on a call after think time).
     */
    int descriptorNumber() {
        int fd = descriptorNumber;
        if (fd < 0) {
            fd = SocketDescriptors.of(this);
            descriptorNumber = fd;
        }
        return fd;
    }

    /** From now on the bytes go over {@code stream}; this socket's TCP connection is the control channel. */
    private void attach(NativeStream stream, String transport) throws IOException {
        NativeConnection connection = new NativeConnection(readTimeout, this, stream, transport, true);
        connection.watch(super.getInputStream(), Negotiator.peerOf(this));
        nativeConnection = connection;
    }

    /** The native connection, or null when the bytes go over TCP. */
    NativeConnection nativeConnection() {
        return nativeConnection;
    }

    /**
     * Where the lean writer sends large primitive arrays straight from the array, once
     * {@code sink} (RMI's buffered output on this socket) is flushed; null when the bytes go over
     * TCP (the socket's own stream copies them anyway).
     */
    public BulkOutput bulkOutput(OutputStream sink) {
        NativeConnection connection = nativeConnection;
        if (connection == null) {
            return null;
        }
        return new BulkOutput() {
            @Override
            public void writeArray(Object array, long byteOffset, long byteLength) throws IOException {
                sink.flush();
                connection.writeArray(array, byteOffset, byteLength);
            }
        };
    }

    /**
     * Where the lean reader reads large primitive arrays straight into the array, past
     * {@code source} (RMI's buffered input on this socket) once it holds nothing; null when the
     * bytes go over TCP, or what {@code source} holds cannot be known.
     */
    public BulkInput bulkInput(InputStream source) {
        NativeConnection connection = nativeConnection;
        if (connection == null) {
            return null;
        }
        InputStream socketInput;
        synchronized (this) {
            socketInput = serverSide ? input : connection.input();
        }
        IntSupplier held = socketInput == null ? null : RmiInputBuffer.held(source, socketInput);
        if (held == null) {
            return null;
        }
        return new BulkInput() {
            @Override
            public int held() {
                return held.getAsInt();
            }

            @Override
            public long readArray(Object array, long byteOffset, long byteLength) throws IOException {
                return connection.readArray(array, byteOffset, byteLength);
            }
        };
    }

    /**
     * On the server, the stream that detects the offer (and then reads from wherever the bytes
     * go); on the client, the native stream once attached, the TCP stream before (the handshake).
     */
    @Override
    public synchronized InputStream getInputStream() throws IOException {
        NativeConnection connection = nativeConnection;
        if (!serverSide) {
            if (connection != null) {
                return connection.input();
            }
            if (!negotiatedFast()) {
                return super.getInputStream(); // the handshake's, or a plain connection's
            }
            // Negotiated fast over TCP (the client negotiates before RMI has its socket).
            if (input == null) {
                input = TcpWaits.input(super.getInputStream(), descriptor, readTimeout);
            }
            return input;
        }
        if (input == null) {
            input = new ServerHandshakeInputStream(this, super.getInputStream());
        }
        return input;
    }

    /**
     * On the client, the native stream once attached, the TCP stream before; on the server, a stream
     * that writes wherever the bytes go at the time of the write, as it may be taken before the
     * first read has negotiated.
     */
    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
        NativeConnection connection = nativeConnection;
        if (!serverSide) {
            return connection != null ? connection.output() : super.getOutputStream();
        }
        if (output == null) {
            OutputStream tcp = super.getOutputStream();
            output = new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    current().write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    current().write(b, off, len);
                }

                @Override
                public void flush() throws IOException {
                    current().flush();
                }

                @Override
                public void close() throws IOException {
                    current().close();
                }

                private OutputStream current() {
                    NativeConnection attached = nativeConnection;
                    return attached != null ? attached.output() : tcp;
                }
            };
        }
        return output;
    }

    @Override
    public void shutdownInput() throws IOException {
        NativeConnection connection = nativeConnection;
        if (connection == null) {
            super.shutdownInput();
        } else {
            connection.shutdownInput();
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        NativeConnection connection = nativeConnection;
        if (connection == null) {
            super.shutdownOutput();
        } else {
            connection.shutdownOutput();
        }
    }

    @Override
    public void setSoTimeout(int timeout) throws java.net.SocketException {
        super.setSoTimeout(timeout);
        soTimeout = timeout;
    }

    int soTimeoutMillis() {
        return soTimeout;
    }

    @Override
    public boolean isInputShutdown() {
        NativeConnection connection = nativeConnection;
        return connection == null ? super.isInputShutdown() : connection.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        NativeConnection connection = nativeConnection;
        return connection == null ? super.isOutputShutdown() : connection.isOutputShutdown();
    }

    @Override
    public synchronized void close() throws IOException {
        // The lean streams go now, with what a call that failed to marshal left in them (its DGC
        // references to the arguments): a closed native connection's objects can stay reachable a
        // while, and RMI would have dropped that call's own stream at once.
        leanStreams = null;
        NativeConnection connection = nativeConnection;
        if (connection != null && !isClosed()) {
            connection.close(super.getOutputStream());
        }
        super.close();
    }

    /** The TCP stream itself, whatever carries the bytes: for the handshake on the control channel. */
    OutputStream rawOutputStream() throws IOException {
        return super.getOutputStream();
    }
}
