package io.fastrmi.fastsockets.transport;

import io.fastrmi.config.RmiLimits;
import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeLibraries;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
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
    private static volatile String binding = "";

    private NativeTransports() {
    }

    /**
     * Called by the agent: how to find the library, the class loader that sees the FFM binding, how
     * a waiting thread waits (at most {@code spin} spinning, as {@code wait} says) and the binding
     * named ({@code ""} for the JDK's default): the config's keys.
     */
    public static void configure(LibraryLocator libraryLocator, ClassLoader loader, Duration spin, WaitMode wait,
            String bindingSetting) {
        locator = libraryLocator;
        binding = bindingSetting;
        bindingLoader = loader;
        spinMicros = (int) Math.min(Integer.MAX_VALUE, spin.toNanos() / 1000);
        waitMode = wait;
    }

    /** The config's {@code wait}. */
    static WaitMode waitMode() {
        return waitMode;
    }

    /** The config's {@code spin}, in nanoseconds. */
    static long spinNanos() {
        return spinMicros * 1000L;
    }

    /**
     * The context of transport {@code name} that a new negotiation with {@code peer} names (a key
     * that tells peers apart: the client's process on a server, the server's endpoint on a client;
     * {@link TransportContexts#forPeer}), or null when the transport cannot be had here (said once).
     */
    public static NativeTransport forPeer(TransportName name, Object peer) {
        TransportContexts contexts = contexts(name);
        return contexts == null ? null : contexts.forPeer(peer);
    }

    /** Whether transport {@code name} opens here (said once when it does not). */
    public static boolean available(TransportName name) {
        return contexts(name) != null;
    }

    private static TransportContexts contexts(TransportName name) {
        TransportContexts contexts = OPEN.get(name);
        return contexts != null || UNAVAILABLE.containsKey(name) ? contexts : open(name);
    }

    private static synchronized TransportContexts open(TransportName name) {
        TransportContexts contexts = OPEN.get(name);
        if (contexts != null || UNAVAILABLE.containsKey(name)) {
            return contexts;
        }
        try {
            ContextOpener opener = new ContextOpener(library(), name);
            // A negotiation may still name a retired context for as long as a handshake may take.
            contexts = new TransportContexts(name, opener.open(), opener, 2L * RmiLimits.handshakeTimeoutMillis(),
                    TransportContexts.SYSTEM_CLOCK);
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

    /**
     * Opens {@code name}'s contexts. A class, not a lambda: the first connection opens a transport,
     * and a lambda would cost the JVM a class spun at its first use (StartupIT).
     */
    private static final class ContextOpener implements TransportContexts.Opener {
        private final NativeLibrary library;
        private final TransportName name;

        ContextOpener(NativeLibrary library, TransportName name) {
            this.library = library;
            this.name = name;
        }

        @Override
        public NativeTransport open() throws IOException {
            return openContext(library, name);
        }
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
     * The library is loaded even for {@code tcp} alone: its idle strategy decides how the reads of
     * fast TCP connections wait ({@link TcpWaits}); until it is there they block.
     */
    public static void warmUp(List<TransportName> names) {
        if (WARMED.compareAndSet(false, true) && locator != null) {
            Thread warmer = new Thread(new WarmUp(names), "fastrmi-transports");
            warmer.setDaemon(true);
            warmer.start();
        }
    }

    private static final class WarmUp implements Runnable {
        private final List<TransportName> names;

        WarmUp(List<TransportName> names) {
            this.names = names;
        }

        @Override
        public void run() {
            for (TransportName name : names) {
                if (name.isNative()) {
                    available(name);
                }
            }
            loadQuietly();
        }
    }

    /** Loads the library where TCP reads may poll; a failure is kept for doctor, and TCP reads then block. */
    private static void loadQuietly() {
        if (!TcpWaits.mayPoll()) {
            return;
        }
        try {
            library();
        } catch (IOException | RuntimeException e) {
            FastRmiLog.once("library", "FastRMI: no native library, so reads on TCP connections block at once: "
                    + e.getMessage());
        }
    }

    /** The native library, loaded at the first call (an {@link IOException} says why it cannot be). */
    public static NativeLibrary library() throws IOException {
        NativeLibrary library = NativeLibraries.get();
        if (library != null) {
            return library;
        }
        if (locator == null) {
            throw new IOException("the native library is not configured (no agent)");
        }
        library = NativeLibraries.load(locator.locate(), bindingLoader, binding);
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
    public static long nextStreamId() {
        long id;
        do {
            id = StreamIds.RANDOM.nextLong() >>> 8;
        } while (id == 0);
        return id;
    }

    private static final class StreamIds {
        static final SecureRandom RANDOM = new SecureRandom();
    }

    /** Lets the peer at {@code ip} connect to {@code context} (its listener, where it has one). */
    public static boolean expect(NativeTransport context, InetAddress ip) {
        try {
            context.expectPeer(ip);
            return true;
        } catch (IOException e) {
            FastRmiLog.once("expect:" + context.name(), "FastRMI: transport " + context.name()
                    + " is not offered: " + e.getMessage());
            return false;
        }
    }

    /** The context of {@code name} whose address is {@code address} (the current one or a retired one), or null. */
    public static NativeTransport contextWithAddress(TransportName name, byte[] address) {
        TransportContexts contexts = OPEN.get(name);
        return contexts == null ? null : contexts.withAddress(address);
    }
}
