package io.fastrmi.fastsockets;

import io.fastrmi.fastsockets.config.TransportName;
import io.fastrmi.fastsockets.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeAddresses;
import io.fastrmi.fastsockets.nativelib.NativeLibraries;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The native transports of this JVM: the contexts of each transport name ("ofi:shm", "ucx", ...),
 * the first opened at its first offer; one serves for the life of the JVM unless it can reach only
 * so many peers ({@link TransportContexts}). The library is located and loaded
 * then too, so a JVM that never negotiates never loads it. A transport that cannot be opened is
 * said once and never offered.
 */
public final class NativeTransports {

    /** Where the library is, asked only when a native transport is first wanted. */
    public interface LibraryLocator {
        Path locate() throws IOException;
    }

    private static volatile LibraryLocator locator;
    private static volatile ClassLoader bindingLoader;
    private static final Map<TransportName, TransportContexts> OPEN = new ConcurrentHashMap<>();
    private static final Map<TransportName, String> UNAVAILABLE = new ConcurrentHashMap<>();
    private static final AtomicBoolean WARMED = new AtomicBoolean();
    private static volatile int spinMicros = 20;
    private static volatile WaitMode waitMode = WaitMode.ADAPTIVE;

    private NativeTransports() {
    }

    /**
     * Called by the agent: how to find the library, the class loader that sees the FFM binding, and
     * how a waiting thread waits: at most {@code spin} spinning, as {@code wait} says (the config's keys).
     */
    public static void configure(LibraryLocator libraryLocator, ClassLoader loader, Duration spin, WaitMode wait) {
        locator = libraryLocator;
        bindingLoader = loader;
        spinMicros = (int) Math.min(Integer.MAX_VALUE, spin.toNanos() / 1000);
        waitMode = wait;
    }

    /**
     * The context of transport {@code name} that a new negotiation names (a fresh one when the
     * current one is nearly full: {@link TransportContexts}), or null when the transport cannot be
     * had here (said once).
     */
    static NativeTransport get(TransportName name) {
        TransportContexts contexts = OPEN.get(name);
        if (contexts == null && !UNAVAILABLE.containsKey(name)) {
            contexts = open(name);
        }
        return contexts == null ? null : contexts.forNewPeer();
    }

    private static synchronized TransportContexts open(TransportName name) {
        TransportContexts contexts = OPEN.get(name);
        if (contexts != null || UNAVAILABLE.containsKey(name)) {
            return contexts;
        }
        try {
            NativeLibrary library = library();
            TransportContexts.Opener opener = () -> openContext(library, name);
            // A negotiation may still name a retired context for as long as a handshake may take.
            contexts = new TransportContexts(name, opener.open(), opener, 2L * Negotiator.handshakeTimeoutMillis(),
                    System::nanoTime);
            OPEN.put(name, contexts);
            return contexts;
        } catch (IOException | RuntimeException e) {
            UNAVAILABLE.put(name, e.getMessage());
            FastRmiLog.once("transport:" + name, "FastRMI: transport " + name
                    + " is not available, the next one in the list is used: " + e.getMessage());
            return null;
        }
    }

    /** One context of {@code name}, as every negotiation and {@link #trial} open it. */
    private static NativeTransport openContext(NativeLibrary library, TransportName name) throws IOException {
        return library.openTransport(name, spinMicros, waitMode);
    }

    /** What opening a transport here gave: null {@code problem} when it opened. */
    public record Trial(TransportName name, String problem, long peersPerContext) {
        public boolean opened() {
            return problem == null;
        }
    }

    /**
     * Opens a context of {@code name} and closes it again, through the same code as the agent's
     * negotiations (the library, the spin and the wait of {@link #configure}): what the agent would get
     * here. For {@code doctor}.
     */
    public static Trial trial(TransportName name) {
        try (NativeTransport context = openContext(library(), name)) {
            return new Trial(name, null, context.peersLeft());
        } catch (IOException | RuntimeException e) {
            return new Trial(name, e.getMessage(), -1);
        }
    }

    /**
     * Opens the native transports among {@code names} on a daemon thread, once per JVM: loading the
     * library, linking its calls and opening a context take a few hundred milliseconds, which
     * would otherwise fall on the first connection. Called when RMI first asks for a socket factory.
     */
    static void warmUp(List<TransportName> names) {
        if (WARMED.compareAndSet(false, true) && locator != null) {
            Thread warmer = new Thread(() -> names.stream().filter(TransportName::isNative).forEach(NativeTransports::get),
                    "fastrmi-transports");
            warmer.setDaemon(true);
            warmer.start();
        }
    }

    private static NativeLibrary library() throws IOException {
        NativeLibrary library = NativeLibraries.get();
        if (library != null) {
            return library;
        }
        if (locator == null) {
            throw new IOException("the native library is not configured (no agent)");
        }
        library = NativeLibraries.load(locator.locate(), bindingLoader);
        if (library == null) {
            throw new IOException(NativeLibraries.unavailableReason());
        }
        return library;
    }

    /**
     * A stream id no peer can guess: a stream's messages are matched by id alone, from any peer
     * that knows our address, so a sequential id would let one connection's peer write into
     * another's. 56 bits: the tag bits every libfabric provider leaves to the application.
     */
    static long nextStreamId() {
        long id;
        do {
            id = StreamIds.RANDOM.nextLong() >>> 8;
        } while (id == 0);
        return id;
    }

    private static final class StreamIds {
        static final SecureRandom RANDOM = new SecureRandom();
    }

    /**
     * The address a handshake carries: this host's {@link HostIdentity}, "/", the context's address
     * in hex, "/", the stream id.
     */
    static String endpoint(NativeTransport transport, long streamId) {
        return HostIdentity.current() + "/" + HexFormat.of().formatHex(transport.address()) + "/" + streamId;
    }

    /** A peer's end of a stream as a handshake carries it: its host, its context's address and its stream id. */
    record PeerEndpoint(String host, byte[] address, long streamId) {
        /** Whether a stream of {@code transport} can reach this peer from here. */
        boolean reachableOver(TransportName transport) {
            return !transport.isSameHostOnly() || host.equals(HostIdentity.current());
        }
    }

    /** Reads an endpoint written by {@link #endpoint}; a malformed one is a {@link HandshakeException}. */
    static PeerEndpoint parseEndpoint(String peerEndpoint) throws HandshakeException {
        String[] parts = peerEndpoint.split("/", -1);
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty()) {
            throw new HandshakeException("transport address '" + peerEndpoint + "' is not HOST/ADDRESS/STREAM");
        }
        try {
            return new PeerEndpoint(parts[0], HexFormat.of().parseHex(parts[1]), Long.parseLong(parts[2]));
        } catch (IllegalArgumentException e) {
            throw new HandshakeException("transport address '" + peerEndpoint + "' is malformed: " + e.getMessage());
        }
    }

    /**
     * Whether this JVM can open a stream of the offered transport to the offering peer: the
     * transport opens here, and the peer's address passes {@link #checkedPeerAddress}.
     */
    static boolean usable(Handshake.Transport offered, ControlConnection connection) {
        if (get(offered.name()) == null) {
            return false;
        }
        try {
            checkedPeerAddress(offered.name(), parseEndpoint(offered.address()), connection);
            return true;
        } catch (HandshakeException e) {
            FastRmiLog.once("endpoint:" + offered.name() + ":" + e.getMessage(), "FastRMI: " + offered.name()
                    + " is not used with " + connection.peer().getHostAddress() + ": " + e.getMessage());
            return false;
        }
    }

    /**
     * The peer's native address for the library, checked: of the kind the transport uses, well
     * formed ({@link NativeAddresses#checked}), a socket address only of a host inside per the config,
     * and for shared memory only of a process of this user on this host, as the kernel says of the
     * peer's end of {@code connection}: never on the peer's word.
     */
    static byte[] checkedPeerAddress(TransportName transport, PeerEndpoint peer, ControlConnection connection)
            throws HandshakeException {
        byte[] address = peer.address();
        char expected = transport.backend() == TransportName.Backend.OFI ? 'O' : transport.isSameHostOnly() ? 'U' : 'S';
        if (address.length == 0 || address[0] != expected) {
            throw new HandshakeException("the peer's " + transport + " address is not of the kind " + transport + " uses");
        }
        byte[] checked;
        try {
            checked = NativeAddresses.checked(address, connection.peer());
        } catch (NativeAddresses.InvalidAddressException e) {
            throw new HandshakeException("the peer sent " + e.getMessage() + " for " + transport);
        }
        if (transport.isSameHostOnly()) {
            if (!peer.reachableOver(transport)) {
                throw new HandshakeException("the peer is not on this host (or not in its network namespace)");
            }
            NativeLibrary.PeerSocket peerSocket = sameUserPeer(connection);
            checkNamesItself(transport, NativeAddresses.namedProcess(checked), peerSocket);
        }
        InetSocketAddress fabric = expected == 'O' ? NativeAddresses.ofiSocketAddress(checked) : null;
        if (fabric != null && !Installation.config().policyFor(null, fabric.getAddress()).optimize()) {
            throw new HandshakeException("the peer's " + transport + " address " + fabric.getAddress().getHostAddress()
                    + " is outside per the config");
        }
        return checked;
    }

    /** The peer's end of the connection, a socket of a process of this user on this host, as the kernel says. */
    private static NativeLibrary.PeerSocket sameUserPeer(ControlConnection connection) throws HandshakeException {
        try {
            NativeLibrary library = library();
            NativeLibrary.PeerSocket peer = library.tcpPeer(connection.remote(), connection.local());
            if (peer == null) {
                throw new HandshakeException("the peer's end of the connection is not on this host");
            }
            int own = library.processUid();
            if (peer.uid() != Integer.toUnsignedLong(own)) {
                throw new HandshakeException("the peer is a process of uid " + peer.uid() + ", not of this user (uid "
                        + Integer.toUnsignedLong(own) + "): no shared memory with it");
            }
            return peer;
        } catch (HandshakeException e) {
            throw e;
        } catch (IOException e) {
            throw new HandshakeException("cannot learn who the peer is: " + e.getMessage(), e);
        }
    }

    /**
     * The process a shared-memory address names (its doorbell, regions, worker file) holds the peer's
     * end of the connection, as the kernel says: a peer offers only its own shared memory, never
     * another process's of this user.
     */
    private static void checkNamesItself(TransportName transport, long pid, NativeLibrary.PeerSocket peerSocket)
            throws HandshakeException {
        if (!SocketOwners.holdsSocket(pid, peerSocket.inode())) {
            throw new HandshakeException("the peer's " + transport + " address names process " + pid
                    + ", which does not hold the peer's end of the connection");
        }
    }

    /** Lets the peer at {@code ip} connect to {@code context} (its listener, where it has one). */
    static boolean expect(NativeTransport context, InetAddress ip) {
        try {
            context.expectPeer(ip);
            return true;
        } catch (IOException e) {
            FastRmiLog.once("expect:" + context.name(), "FastRMI: transport " + context.name()
                    + " is not offered: " + e.getMessage());
            return false;
        }
    }

    /**
     * The endpoint an offer carries for transport {@code name} to the server at {@code server}: of
     * the context new peers get, for stream {@code localStreamId}; null when the transport cannot be
     * offered.
     */
    static String offeredEndpoint(TransportName name, long localStreamId, InetAddress server) {
        NativeTransport context = get(name);
        return context != null && expect(context, server) ? endpoint(context, localStreamId) : null;
    }

    /**
     * The client's end of the native stream a server's answer named (for stream {@code localId} of
     * the offer), or null when the answer chose tcp.
     */
    static NativeStream openAnswered(Handshake.Offer offer, Handshake.Answer answer, long localId,
            ControlConnection connection) throws IOException {
        TransportName name = answer.transport().name();
        if (!name.isNative()) {
            return null;
        }
        NativeTransport context = offeredContext(offer, name);
        PeerEndpoint peer = parseEndpoint(answer.transport().address());
        return context.open(checkedPeerAddress(name, peer, connection), localId, peer.streamId());
    }

    /** The context of ours that {@code offer} named for transport {@code name}. */
    private static NativeTransport offeredContext(Handshake.Offer offer, TransportName name) throws HandshakeException {
        TransportContexts contexts = OPEN.get(name);
        for (Handshake.Transport offered : offer.transports()) {
            if (offered.name().equals(name) && offered.address() != null) {
                NativeTransport context = contexts == null ? null
                        : contexts.withAddress(parseEndpoint(offered.address()).address());
                if (context == null) {
                    throw new HandshakeException("the " + name + " context this JVM offered is closed");
                }
                return context;
            }
        }
        throw new HandshakeException("the server chose " + name + ", which this JVM did not offer");
    }
}
