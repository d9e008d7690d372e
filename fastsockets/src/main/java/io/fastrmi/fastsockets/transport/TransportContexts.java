package io.fastrmi.fastsockets.transport;

import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The contexts of one native transport in this JVM. New peers go to the current context. A context
 * that can reach only a few more peers ({@code ofi:shm}: 256 in its life, as libfabric cannot reuse
 * an address's place) is retired before it is full and a fresh one takes new peers, so a server with
 * client churn never hits a wall. A retired context keeps its streams, and is closed once it has none
 * and no negotiation in progress can still name it: negotiations pair on the context whose address
 * they sent ({@link #withAddress}), which may have been retired meanwhile.
 */
final class TransportContexts {

    /**
     * Places a context keeps for negotiations that named it and pair after it was retired: more than
     * a JVM negotiates at once with new peers. A context with fewer left is retired.
     */
    static final int HEADROOM = 16;

    /** Opens a fresh context of the transport. */
    interface Opener {
        NativeTransport open() throws IOException;
    }

    private record Retired(NativeTransport context, long sinceNanos) {
    }

    private final TransportName name;
    private final Opener opener;
    private final LongSupplier nanoClock;
    private final long graceNanos;
    private NativeTransport current;
    private final List<Retired> retired = new ArrayList<>();

    /**
     * {@code first}: the context new peers get until it is nearly full; {@code opener} opens the
     * next ones. {@code graceMillis}: how long a retired context may still be named by a
     * negotiation in progress (longer than a handshake may take).
     */
    TransportContexts(TransportName name, NativeTransport first, Opener opener, long graceMillis, LongSupplier nanoClock) {
        this.name = name;
        this.current = first;
        this.opener = opener;
        this.graceNanos = graceMillis * 1_000_000L;
        this.nanoClock = nanoClock;
    }

    /**
     * The context a new negotiation names: the current one, or a fresh one when the current one
     * has {@link #HEADROOM} places left or fewer. Retired contexts without streams whose grace has
     * passed are closed here.
     */
    synchronized NativeTransport forNewPeer() {
        closeDrained();
        if (nearlyFull(current)) {
            NativeTransport fresh;
            try {
                fresh = opener.open();
            } catch (IOException e) {
                // The current one still has its headroom: new peers get it while it lasts.
                FastRmiLog.once("retire:" + name, "FastRMI: cannot open a fresh " + name
                        + " context for new peers, the current one has " + current.peersLeft() + " places left: "
                        + e.getMessage());
                return current;
            }
            retired.add(new Retired(current, nanoClock.getAsLong()));
            current = fresh;
        }
        return current;
    }

    /** The context whose address is {@code address} (one this JVM sent in a negotiation), or null when it is closed. */
    synchronized NativeTransport withAddress(byte[] address) {
        if (Arrays.equals(current.address(), address)) {
            return current;
        }
        for (Retired r : retired) {
            if (Arrays.equals(r.context().address(), address)) {
                return r.context();
            }
        }
        return null;
    }

    /** Retired contexts not closed yet. */
    synchronized int retiredOpen() {
        return retired.size();
    }

    private static boolean nearlyFull(NativeTransport context) {
        long left = context.peersLeft();
        return left >= 0 && left <= HEADROOM;
    }

    private void closeDrained() {
        long now = nanoClock.getAsLong();
        for (Iterator<Retired> it = retired.iterator(); it.hasNext();) {
            Retired r = it.next();
            if (now - r.sinceNanos() >= graceNanos && r.context().closeIfIdle()) {
                it.remove();
            }
        }
    }
}
