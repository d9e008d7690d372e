package io.fastrmi.fastsockets.jvm;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.config.HostPolicy;
import io.fastrmi.config.LocalAddresses;
import io.fastrmi.config.PortRanges;
import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.handshake.ClientHandshake;
import io.fastrmi.fastsockets.handshake.ControlConnection;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.fastsockets.handshake.HandshakeException;
import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.fastsockets.handshake.Jrmp;
import io.fastrmi.fastsockets.handshake.Negotiation;
import io.fastrmi.fastsockets.handshake.Negotiator;
import io.fastrmi.fastsockets.handshake.SocketTransport;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.transport.FastRmiLog;
import io.fastrmi.fastsockets.transport.NativeConnection;
import io.fastrmi.fastsockets.transport.NativeTransports;
import io.fastrmi.fastsockets.transport.SocketDescriptors;
import io.fastrmi.fastsockets.transport.TcpWaits;
import java.io.Closeable;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.net.SocketOptions;
import java.net.SocketTimeoutException;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Every socket of a JVM with scope = jvm: the JDK's own implementation carries TCP underneath, and a
 * connection between two such JVMs moves its bytes to a native transport.
 *
 * <p>A client offers only to a FastRMI listener: on this host, one that {@link LocalListeners} names
 * (and it leaves a marker first); on another host, a port the config names in {@code jvm-ports}
 * (and it connects from a port of {@code offer-ports}). A listener reads an offer only from a
 * connection that says so in one of these two ways, so no other client and no other server ever
 * meets FastRMI's bytes. Both ends negotiate lazily, at the connection's first read, write,
 * half-close or {@code available()}: accept and connect never wait for the peer, and a server that
 * speaks first reads the offer (already sent) before its first write. So a client may close before it
 * has read the answer; it then sends {@link NativeConnection#UNUSED}, and where the answer keeps the
 * bytes on the socket, the client's first write carries {@link Handshake#SOCKET_ANSWER_READ} before
 * its data, so that the listener never takes the one for the other. Every other connection is the
 * JDK's own, untouched.
 */
final class JvmSocketImpl extends SocketImpl {

    /** Where a connection stands: plain from the start, offer sent (client), marker found (server), done. */
    private enum Phase { PLAIN, OFFERED, ANNOUNCED, NEGOTIATED }

    /** Random ports of offer-ports tried before a connection to another host goes plain. */
    private static final int OFFER_PORT_ATTEMPTS = 16;
    /** An offer to another host leaves no marker. */
    private static final Closeable NO_MARKER = () -> { };

    private final SocketImpl platform;
    private final LocalListeners listeners;
    private final Object negotiation = new Object();
    private volatile Phase phase = Phase.PLAIN;
    private volatile TransportName transport;
    private volatile NativeConnection nativeConnection;
    private volatile int soTimeout;
    private volatile boolean closed;
    private long localStreamId;
    /** The client's offer, whose native endpoints name the contexts the answer's stream opens on. */
    private Handshake.Offer offer;
    /** A listener's registration, until it closes. */
    private Closeable registration;
    private volatile InputStream tcpInput;
    /** Negotiated fast over TCP: the reads, which wait as the native streams' ({@link TcpWaits}). */
    private volatile InputStream fastTcpInput;
    private volatile OutputStream tcpOutput;
    private final InputStream input = new Input();
    private final OutputStream output = new Output();
    /** Guards the acknowledgement of a socket answer, which one write sends and one read takes. */
    private final Object acknowledgement = new Object();
    /** Client: its first write sends the acknowledgement the answer awaits. */
    private volatile boolean acknowledgementToSend;
    /** Listener: its first read takes the client's acknowledgement (or its unused signal, or the end). */
    private volatile boolean acknowledgementToRead;
    /** Listener: the client closed unused, or ended its stream before any data: every read is the end. */
    private volatile boolean endedBeforeData;

    JvmSocketImpl(SocketImpl platform, LocalListeners listeners) {
        this.platform = platform;
        this.listeners = listeners;
    }

    /** Not negotiated (no offer on this connection), pending (not negotiated yet), or the negotiated transport. */
    SocketTransport transport() {
        return switch (phase) {
            case PLAIN -> SocketTransport.NOT_NEGOTIATED;
            case OFFERED, ANNOUNCED -> SocketTransport.PENDING;
            case NEGOTIATED -> SocketTransport.negotiated(transport);
        };
    }

    @Override
    protected void create(boolean stream) throws IOException {
        PlatformSockets.create(platform, stream);
    }

    @Override
    protected void connect(String host, int port) throws IOException {
        connect(new InetSocketAddress(host, port), 0);
    }

    @Override
    protected void connect(InetAddress address, int port) throws IOException {
        connect(new InetSocketAddress(address, port), 0);
    }

    /**
     * To a FastRMI listener: bound first (see {@link #bindForOffer}), connected, the offer sent.
     * Anything else, and an offer that finds no port to bind: the JDK's connect.
     */
    @Override
    protected void connect(SocketAddress address, int timeout) throws IOException {
        InetSocketAddress target = address instanceof InetSocketAddress inet && !inet.isUnresolved()
                && PlatformSockets.localPort(platform) == 0 ? inet : null;
        HostPolicy policy = target == null ? null : offerPolicy(target);
        Closeable marker = policy == null ? null : bindForOffer(target);
        if (marker == null) {
            PlatformSockets.connect(platform, address, timeout);
            return;
        }
        localStreamId = NativeTransports.nextStreamId();
        offer = ClientHandshake.offer(policy, Installation.fingerprint(), localStreamId, target).acknowledgingSocketAnswer();
        try {
            PlatformSockets.connect(platform, address, timeout);
        } catch (IOException e) {
            closeQuietly(marker);
            throw e;
        }
        Handshake.writeOffer(tcpOutput(), offer);
        phase = Phase.OFFERED;
    }

    /**
     * The policy to offer under, or null for a plain connection: a FastRMI listener of this host
     * (its listener directory says so; the same port on another host is another server), or a port
     * the config names in {@code jvm-ports} for another host; and the host inside.
     */
    private HostPolicy offerPolicy(InetSocketAddress target) {
        InetAddress address = target.getAddress();
        FastRmiConfig config = Installation.config();
        boolean listenerHere = listeners.isListening(address, target.getPort()) && LocalAddresses.isLocal(address);
        if (!listenerHere && !config.namesJvmPorts()) {
            return null;
        }
        HostPolicy policy = Installation.policyFor(address);
        boolean listenerThere = !listenerHere && policy.jvmPorts().contains(target.getPort())
                && !LocalAddresses.isLocal(address);
        if (!policy.optimize() || !(listenerHere || listenerThere)) {
            return null;
        }
        Installation.warmUpTransports();
        return policy;
    }

    /**
     * Binds the local end so that the listener can tell this connection carries an offer: on this
     * host, to the destination's own address (so the listener sees a local peer) with a marker
     * naming the port (returned, to be removed if the connect fails); to another host, to a port of
     * the config's {@code offer-ports}. Null when no such port is free: the connection is then plain.
     */
    private Closeable bindForOffer(InetSocketAddress target) throws IOException {
        if (LocalAddresses.isLocal(target.getAddress())) {
            PlatformSockets.bind(platform, target.getAddress(), 0);
            return listeners.announce(target.getPort(), PlatformSockets.localPort(platform));
        }
        PortRanges offerPorts = Installation.config().offerPorts();
        InetAddress wildcard = new InetSocketAddress(0).getAddress();
        for (int attempt = 0; attempt < OFFER_PORT_ATTEMPTS; attempt++) {
            int port = offerPorts.port(ThreadLocalRandom.current().nextInt(offerPorts.count()));
            try {
                PlatformSockets.bind(platform, wildcard, port);
                return NO_MARKER;
            } catch (java.net.BindException e) {
                // taken, or lingering in TIME_WAIT from an earlier connection: another one
            }
        }
        FastRmiLog.once("offer-ports", "FastRMI: no free local port in offer-ports (" + offerPorts
                + ") after " + OFFER_PORT_ATTEMPTS + " tries; such connections are plain TCP until one is free");
        return null;
    }

    @Override
    protected void bind(InetAddress host, int port) throws IOException {
        PlatformSockets.bind(platform, host, port);
    }

    /** A server socket listens: it is registered as a FastRMI listener (failing that, it stays plain). */
    @Override
    protected void listen(int backlog) throws IOException {
        PlatformSockets.listen(platform, backlog);
        try {
            InetAddress bound = (InetAddress) platform.getOption(SocketOptions.SO_BINDADDR);
            registration = listeners.register(bound, PlatformSockets.localPort(platform));
            Installation.warmUpTransports();
        } catch (IOException e) {
            FastRmiLog.once("register", "FastRMI: cannot register listeners for scope = jvm, connections to"
                    + " this JVM stay plain TCP: " + e.getMessage());
        }
    }

    @Override
    protected void accept(SocketImpl s) throws IOException {
        if (!(s instanceof JvmSocketImpl accepted)) {
            throw new SocketException("FastRMI (scope = jvm) cannot accept into a " + s.getClass().getName());
        }
        PlatformSockets.accept(platform, accepted.platform);
        accepted.acceptedBy(registration != null, PlatformSockets.localPort(platform));
    }

    /**
     * An offer is read from this connection only if its peer said it sends one: a peer on this host
     * left its marker; a peer on another host connected from a port of {@code offer-ports}, its host
     * is inside, and this listener's port is one the config names in {@code jvm-ports} for this host.
     */
    private void acceptedBy(boolean registeredListener, int listenerPort) throws IOException {
        if (!registeredListener) {
            return;
        }
        InetAddress remote = PlatformSockets.address(platform);
        InetAddress local = (InetAddress) platform.getOption(SocketOptions.SO_BINDADDR);
        int remotePort = PlatformSockets.port(platform);
        boolean announced;
        if (remote.equals(local)) {
            announced = listeners.claim(listenerPort, remotePort);
        } else {
            FastRmiConfig config = Installation.config();
            announced = config.offerPorts().contains(remotePort) && config.namesJvmPorts()
                    && Installation.policyFor(local).jvmPorts().contains(listenerPort) && Installation.policyFor(remote).optimize();
        }
        if (announced) {
            phase = Phase.ANNOUNCED;
        }
    }

    /** Runs the negotiation if one is due; every stream operation comes through here first. */
    private void negotiate() throws IOException {
        Phase current = phase;
        if (current == Phase.PLAIN || current == Phase.NEGOTIATED) {
            return;
        }
        synchronized (negotiation) {
            if (phase == Phase.OFFERED) {
                readAnswer();
            } else if (phase == Phase.ANNOUNCED) {
                answerOffer();
            }
        }
    }

    /**
     * The client's half: the answer's first byte waits as the application's read would (SO_TIMEOUT
     * included: a timeout leaves the negotiation to the next call), the rest within the handshake limit.
     */
    private void readAnswer() throws IOException {
        Negotiator negotiator = Negotiator.client(new Channel(), Negotiator.Scope.JVM);
        try {
            int first = tcpInput().read();
            if (first < 0) {
                // The listener closed before using the connection: it ends as plain TCP would.
                finish(TransportName.TCP);
                return;
            }
            if (first != Jrmp.PROTOCOL_FASTRMI) {
                throw new HandshakeException("the listener answered the FastRMI offer with byte 0x"
                        + Integer.toHexString(first) + ", not FastRMI's 0x46");
            }
            negotiator.attach(offer, negotiator.readAnswerBody(), localStreamId);
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            throw closed ? closedMeanwhile() : negotiator.failed(e);
        }
    }

    /** The listener's half: read the offer (already sent: the marker said so), answer, open the stream. */
    private void answerOffer() throws IOException {
        Negotiator negotiator = Negotiator.server(new Channel(), Negotiator.Scope.JVM);
        try {
            Handshake.Offer offer = negotiator.readOffer(Handshake::readOffer);
            if (tcpInput().available() > 0) {
                // Before the answer a client sends nothing more, unless it closed unused.
                int next = tcpInput().read();
                if (next != NativeConnection.UNUSED) {
                    throw new HandshakeException("byte 0x" + Integer.toHexString(next) + " after the offer, before the answer");
                }
                finish(TransportName.TCP);
                negotiator.plain("the client closed the connection before using it");
                return;
            }
            negotiator.answer(offer, Installation.policyFor(PlatformSockets.address(platform)), Negotiation.FOR_BYTES);
        } catch (IOException e) {
            throw closed ? closedMeanwhile() : negotiator.failed(e);
        }
    }

    /** What a negotiation cut short by this socket's close says: java.net's word for it, no handshake failure. */
    private static SocketException closedMeanwhile() {
        return new SocketException("Socket closed");
    }

    /**
     * Client: the acknowledgement goes in front of the first write's data, in one send (apart, the
     * data could wait behind Nagle's algorithm for the acknowledgement's ACK).
     */
    private void writeToSocket(byte[] b, int off, int len) throws IOException {
        if (acknowledgementToSend && len > 0) {
            synchronized (acknowledgement) {
                if (acknowledgementToSend) {
                    byte[] first = new byte[len + 1];
                    first[0] = (byte) Handshake.SOCKET_ANSWER_READ;
                    System.arraycopy(b, off, first, 1, len);
                    tcpOutput().write(first, 0, first.length);
                    acknowledgementToSend = false;
                    return;
                }
            }
        }
        tcpOutput().write(b, off, len);
    }

    /**
     * Listener: takes the client's acknowledgement if it is due, waiting as the application's read
     * would (a timeout leaves it due); false when the stream ends before any data instead: the
     * client closed unused (after the answer, which it never read) or sent nothing.
     */
    private boolean acknowledged() throws IOException {
        synchronized (acknowledgement) {
            if (acknowledgementToRead) {
                int signal = tcpInput().read();
                if (signal == NativeConnection.UNUSED || signal < 0) {
                    endedBeforeData = true;
                } else if (signal != Handshake.SOCKET_ANSWER_READ) {
                    close();
                    throw new HandshakeException("byte 0x" + Integer.toHexString(signal) + " from " + peer()
                            + " where its acknowledgement of the answer (0x06) was due; connection closed");
                }
                acknowledgementToRead = false;
            }
            return !endedBeforeData;
        }
    }

    private void finish(TransportName name) {
        transport = name;
        phase = Phase.NEGOTIATED;
    }

    /** This connection as a negotiation sees it. */
    private final class Channel implements Negotiator.Connection {

        @Override
        public String peer() {
            return JvmSocketImpl.this.peer();
        }

        @Override
        public InputStream rawInput() throws IOException {
            return tcpInput();
        }

        @Override
        public OutputStream rawOutput() throws IOException {
            return tcpOutput();
        }

        @Override
        public ControlConnection control() throws IOException {
            return ControlConnection.of((InetAddress) platform.getOption(SocketOptions.SO_BINDADDR),
                    PlatformSockets.localPort(platform), PlatformSockets.address(platform), PlatformSockets.port(platform));
        }

        /** The application's SO_TIMEOUT, which the handshake's reads replace for a while. */
        @Override
        public int readTimeout() {
            return soTimeout;
        }

        @Override
        public void readTimeout(int millis) throws IOException {
            platform.setOption(SocketOptions.SO_TIMEOUT, millis);
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        /**
         * Under this socket's lock, which close takes to decide whether to send the unused signal:
         * a client that has sent it never negotiates, so never sends data after it.
         */
        @Override
        public void negotiated(Handshake.Answer answer, NativeStream stream) throws IOException {
            synchronized (JvmSocketImpl.this) {
                if (closed) {
                    if (stream != null) {
                        stream.close();
                    }
                    throw closedMeanwhile();
                }
                if (stream != null) {
                    NativeConnection connection = new NativeConnection(() -> soTimeout, JvmSocketImpl.this::close, stream,
                            answer.transport().name().toString(), false);
                    connection.watch(tcpInput(), peer());
                    nativeConnection = connection;
                } else {
                    if (answer.fast()) {
                        fastTcpInput = TcpWaits.input(tcpInput(), () -> SocketDescriptors.of(platform), () -> soTimeout);
                    }
                    if (answer.awaitsAcknowledgement()) {
                        if (phase == Phase.OFFERED) {
                            acknowledgementToSend = true;
                        } else {
                            acknowledgementToRead = true;
                        }
                    }
                }
                finish(answer.transport().name());
            }
        }

        @Override
        public void close() throws IOException {
            JvmSocketImpl.this.close();
        }
    }

    private String peer() {
        InetAddress address = PlatformSockets.address(platform);
        return address == null ? "?" : address.getHostAddress() + ":" + PlatformSockets.port(platform);
    }

    /** The JDK's streams, taken once: every read and write of a plain connection comes here. */
    private InputStream tcpInput() throws IOException {
        InputStream in = tcpInput;
        if (in == null) {
            synchronized (this) {
                if (tcpInput == null) {
                    tcpInput = PlatformSockets.input(platform);
                }
                in = tcpInput;
            }
        }
        return in;
    }

    private OutputStream tcpOutput() throws IOException {
        OutputStream out = tcpOutput;
        if (out == null) {
            synchronized (this) {
                if (tcpOutput == null) {
                    tcpOutput = PlatformSockets.output(platform);
                }
                out = tcpOutput;
            }
        }
        return out;
    }

    @Override
    protected InputStream getInputStream() {
        return input;
    }

    @Override
    protected OutputStream getOutputStream() {
        return output;
    }

    /** Before the negotiation, what has arrived of the peer's half of it lets it run now without waiting long. */
    @Override
    protected int available() throws IOException {
        if (phase != Phase.PLAIN && phase != Phase.NEGOTIATED && tcpInput().available() > 0) {
            negotiate();
        }
        NativeConnection connection = nativeConnection;
        if (connection != null) {
            return connection.input().available();
        }
        if ((acknowledgementToRead && (tcpInput().available() == 0 || !acknowledged())) || endedBeforeData) {
            return 0;
        }
        return phase == Phase.PLAIN || phase == Phase.NEGOTIATED ? tcpInput().available() : 0;
    }

    @Override
    protected void close() throws IOException {
        NativeConnection connection;
        boolean offeredUnused;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            connection = nativeConnection;
            offeredUnused = phase == Phase.OFFERED;
        }
        closeQuietly(registration);
        if (connection != null) {
            connection.close(tcpOutput());
        } else if (offeredUnused) {
            // Offered, never used: the listener may have opened its end already, and must read
            // the end of the stream, not a death.
            try {
                tcpOutput().write(NativeConnection.UNUSED);
            } catch (IOException ignored) {
                // the listener closed first: nothing waits for the signal
            }
        }
        PlatformSockets.close(platform);
    }

    @Override
    protected void shutdownInput() throws IOException {
        negotiate();
        NativeConnection connection = nativeConnection;
        if (connection == null) {
            PlatformSockets.shutdownInput(platform);
        } else {
            connection.shutdownInput();
        }
    }

    @Override
    protected void shutdownOutput() throws IOException {
        negotiate();
        NativeConnection connection = nativeConnection;
        if (connection == null) {
            PlatformSockets.shutdownOutput(platform);
        } else {
            connection.shutdownOutput();
        }
    }

    @Override
    protected void sendUrgentData(int data) throws IOException {
        negotiate();
        if (nativeConnection != null) {
            throw new SocketException("urgent data cannot be sent on a FastRMI native connection ("
                    + transport + ")");
        }
        if (acknowledgementToSend) {
            // alone, before it: a listener with SO_OOBINLINE reads the urgent byte in line
            synchronized (acknowledgement) {
                if (acknowledgementToSend) {
                    tcpOutput().write(Handshake.SOCKET_ANSWER_READ);
                    acknowledgementToSend = false;
                }
            }
        }
        PlatformSockets.sendUrgentData(platform, data);
    }

    @Override
    protected boolean supportsUrgentData() {
        return PlatformSockets.supportsUrgentData(platform);
    }

    @Override
    public void setOption(int optID, Object value) throws SocketException {
        platform.setOption(optID, value);
        if (optID == SocketOptions.SO_TIMEOUT) {
            soTimeout = (Integer) value;
        }
    }

    @Override
    public Object getOption(int optID) throws SocketException {
        return platform.getOption(optID);
    }

    @Override
    protected <T> void setOption(SocketOption<T> name, T value) throws IOException {
        PlatformSockets.setOption(platform, name, value);
    }

    @Override
    protected <T> T getOption(SocketOption<T> name) throws IOException {
        return PlatformSockets.getOption(platform, name);
    }

    @Override
    protected Set<SocketOption<?>> supportedOptions() {
        return PlatformSockets.supportedOptions(platform);
    }

    @Override
    protected FileDescriptor getFileDescriptor() {
        return PlatformSockets.fileDescriptor(platform);
    }

    @Override
    protected InetAddress getInetAddress() {
        return PlatformSockets.address(platform);
    }

    @Override
    protected int getPort() {
        return PlatformSockets.port(platform);
    }

    @Override
    protected int getLocalPort() {
        return PlatformSockets.localPort(platform);
    }

    @Override
    protected void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        PlatformSockets.setPerformancePreferences(platform, connectionTime, latency, bandwidth);
    }

    private static void closeQuietly(Closeable closeable) {
        if (closeable != null) {
            try {
                closeable.close();
            } catch (IOException ignored) {
                // a marker or registration left behind names this JVM, and counts for nothing once it is gone
            }
        }
    }

    /** The application's reads: the negotiation first, then the native stream or TCP. */
    private final class Input extends InputStream {
        private final byte[] one = new byte[1];

        @Override
        public int read() throws IOException {
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            negotiate();
            NativeConnection connection = nativeConnection;
            if (connection != null) {
                return connection.input().read(b, off, len);
            }
            if ((acknowledgementToRead && !acknowledged()) || endedBeforeData) {
                return -1;
            }
            InputStream fastTcp = fastTcpInput;
            return fastTcp != null ? fastTcp.read(b, off, len) : tcpInput().read(b, off, len);
        }

        @Override
        public int available() throws IOException {
            return JvmSocketImpl.this.available();
        }

        @Override
        public void close() throws IOException {
            JvmSocketImpl.this.close();
        }
    }

    /** The application's writes: the negotiation first, then the native stream or TCP. */
    private final class Output extends OutputStream {
        private final byte[] one = new byte[1];

        @Override
        public void write(int b) throws IOException {
            one[0] = (byte) b;
            write(one, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            negotiate();
            NativeConnection connection = nativeConnection;
            if (connection != null) {
                connection.output().write(b, off, len);
            } else {
                writeToSocket(b, off, len);
            }
        }

        @Override
        public void close() throws IOException {
            JvmSocketImpl.this.close();
        }
    }
}
