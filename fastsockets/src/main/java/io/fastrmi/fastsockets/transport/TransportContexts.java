package io.fastrmi.fastsockets.transport;

import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * The contexts of one native transport in this JVM. New peers go to the current context. A context
 * that can reach only a few more peers ({@code ofi:shm}: 256 in its life, as libfabric cannot reuse
 * an address's place) is retired before it is full and a fresh one takes new peers, so a server with
 * client churn never hits a wall. A retired context keeps its streams, and is closed once it has none
 * and no negotiation in progress can still name it: negotiations pair on the context whose address
 * they sent ({@link #withAddress}), which may have been retired meanwhile.
 *
 * <p>A context whose streams are all closed and that keeps peers that are gone ({@link
 * NativeTransport#peersGone}: {@code ofi:shm} keeps every peer's place, and libfabric a mapping of
 * its region, for the context's life) is spent: it is retired too, and closed once no negotiation can
 * still name it, so that departed clients leave nothing behind on a server that sees no new ones. A
 * context that goes idle schedules that look (on a daemon thread that ends when nothing is left to
 * look at); new peers then get a fresh context, opened when the first one comes.
 *
 * <p>A transport where one peer that dies in the middle of a send can stop a context from receiving
 * from all its other peers ({@link NativeTransport#peerCanBlockOthers}: UCX's shared memory) gives
 * each peer a context of its own instead ({@link #forPeer}), so that a dead peer stops only its own.
 * A peer's context is closed a grace after its last stream closed; a spare one is kept open ahead,
 * so that a new peer does not wait for one to open.
 */
final class TransportContexts {

    /**
     * Places a context keeps for negotiations that named it and pair after it was retired: more than
     * a JVM negotiates at once with new peers. A context with fewer left is retired.
     */
    static final int HEADROOM = 16;

    /** The most peers with a context each; beyond them new peers are refused the transport (they get tcp). */
    static final int PEER_CONTEXTS_MAX = 512;

    /** {@link System#nanoTime}, as the contexts' clock (a class: a method reference costs a class spun at its first use). */
    static final LongSupplier SYSTEM_CLOCK = new LongSupplier() {
        @Override
        public long getAsLong() {
            return System.nanoTime();
        }
    };

    /** Opens a fresh context of the transport. */
    interface Opener {
        NativeTransport open() throws IOException;
    }

    private record Retired(NativeTransport context, long sinceNanos) {
    }

    /** A peer's own context, and when a negotiation last named it. */
    private static final class PeerContext {
        final NativeTransport context;
        long namedNanos;

        PeerContext(NativeTransport context) {
            this.context = context;
        }
    }

    private final TransportName name;
    private final Opener opener;
    private final LongSupplier nanoClock;
    private final long graceNanos;
    /** A context each per peer (see the class comment); then {@link #current} is the spare. */
    private final boolean contextPerPeer;
    private final Map<Object, PeerContext> peerContexts = new HashMap<>();
    /** Null once a spent context was closed, until a new peer comes; with a context per peer, the spare. */
    private NativeTransport current;
    /** When {@link #forNewPeer} last handed out {@link #current}. */
    private long currentNamedNanos;
    private final List<Retired> retired = new ArrayList<>();
    private final AtomicBoolean tidyScheduled = new AtomicBoolean();

    /** Looks at idle contexts a grace after they went idle; its one thread ends a second after the last look. */
    private static final ScheduledThreadPoolExecutor TIDIER = tidier();

    private static ScheduledThreadPoolExecutor tidier() {
        ScheduledThreadPoolExecutor tidier = new ScheduledThreadPoolExecutor(1, new TidierThread());
        tidier.setKeepAliveTime(1, TimeUnit.SECONDS);
        tidier.allowCoreThreadTimeOut(true);
        return tidier;
    }

    private static final class TidierThread implements ThreadFactory {
        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "fastrmi-contexts");
            thread.setDaemon(true);
            return thread;
        }
    }

    // Classes, not lambdas or method references, here and in the tidier: the first connection opens
    // a context, and each lambda would cost the JVM a class spun at its first use (StartupIT).
    private final Runnable whenContextIdle = new Runnable() {
        @Override
        public void run() {
            contextIdle();
        }
    };
    private final Runnable spareOpening = new Runnable() {
        @Override
        public void run() {
            openSpare();
        }
    };
    private final Runnable scheduledTidying = new Runnable() {
        @Override
        public void run() {
            scheduledTidy();
        }
    };

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
        this.currentNamedNanos = nanoClock.getAsLong();
        this.contextPerPeer = first.peerCanBlockOthers();
        first.onIdle(whenContextIdle);
    }

    /**
     * The context a new negotiation with {@code peer} names: where each peer gets a context of its
     * own, the one of {@code peer} (a key: the client's process, or the server's endpoint), else
     * {@link #forNewPeer}. Null when none can be had (said once).
     */
    synchronized NativeTransport forPeer(Object peer) {
        if (!contextPerPeer) {
            return forNewPeer();
        }
        PeerContext own = peerContexts.get(peer);
        if (own == null) {
            if (peerContexts.size() >= PEER_CONTEXTS_MAX) {
                FastRmiLog.once("peers:" + name, "FastRMI: " + peerContexts.size() + " peers have a " + name
                        + " context each; further peers get tcp until some leave");
                return null;
            }
            NativeTransport context = current != null ? current : openedOrSaid("a " + name + " context for a new peer");
            current = null;
            if (context == null) {
                return null;
            }
            own = new PeerContext(context);
            peerContexts.put(peer, own);
            TIDIER.execute(spareOpening);
            contextIdle(); // closed if no stream ever opens on it (the peer answered tcp, say)
        }
        own.namedNanos = nanoClock.getAsLong();
        return own.context;
    }

    /** Opens the spare the next new peer takes, outside the lock (a context takes milliseconds to open). */
    private void openSpare() {
        synchronized (this) {
            if (current != null) {
                return;
            }
        }
        NativeTransport spare;
        try {
            spare = opened();
        } catch (IOException | RuntimeException e) {
            FastRmiLog.once("spare:" + name, "FastRMI: cannot open a spare " + name + " context: " + e.getMessage());
            return;
        }
        synchronized (this) {
            if (current == null) {
                current = spare;
                return;
            }
        }
        spare.close();
    }

    /**
     * The context a new negotiation names: the current one, or a fresh one when the current one
     * has {@link #HEADROOM} places left or fewer. Retired contexts without streams whose grace has
     * passed are closed here.
     */
    synchronized NativeTransport forNewPeer() {
        closeDrained();
        if (current == null) {
            // The last one was spent and closed: a fresh one for the first new peer.
            current = openedOrSaid("a fresh " + name + " context for new peers");
            if (current == null) {
                return null;
            }
        } else if (nearlyFull(current) || spent(current)) {
            NativeTransport fresh;
            try {
                fresh = opened();
            } catch (IOException e) {
                // The current one still has its headroom: new peers get it while it lasts.
                FastRmiLog.once("retire:" + name, "FastRMI: cannot open a fresh " + name
                        + " context for new peers, the current one has " + current.peersLeft() + " places left: "
                        + e.getMessage());
                currentNamedNanos = nanoClock.getAsLong();
                return current;
            }
            retired.add(new Retired(current, nanoClock.getAsLong()));
            current = fresh;
            contextIdle(); // a retired context may have no stream left to close, and so no event of its own
        }
        currentNamedNanos = nanoClock.getAsLong();
        return current;
    }

    /** A fresh context, or null when none opens ({@code what} it was for said once). */
    private NativeTransport openedOrSaid(String what) {
        try {
            return opened();
        } catch (IOException e) {
            FastRmiLog.once("reopen:" + name, "FastRMI: cannot open " + what + ": " + e.getMessage());
            return null;
        }
    }

    private NativeTransport opened() throws IOException {
        NativeTransport fresh = opener.open();
        fresh.onIdle(whenContextIdle);
        return fresh;
    }

    /**
     * Closes what is spent and out of every negotiation's reach: retired contexts without streams
     * whose grace has passed, and the current context when it is spent and no negotiation named it
     * within the grace. True when a context is left that may be closed later (idle, within its grace).
     */
    synchronized boolean tidy() {
        closeDrained();
        long now = nanoClock.getAsLong();
        boolean later = false;
        if (current != null && spent(current)) {
            if (now - currentNamedNanos >= graceNanos && current.closeIfIdle()) {
                current = null;
            } else {
                later = true;
            }
        }
        for (Retired r : retired) {
            later |= r.context().idle();
        }
        for (Iterator<PeerContext> it = peerContexts.values().iterator(); it.hasNext();) {
            PeerContext own = it.next();
            if (now - own.namedNanos >= graceNanos && own.context.closeIfIdle()) {
                it.remove();
            } else {
                later |= own.context.idle();
            }
        }
        return later;
    }

    /** A context's last stream closed: a look a grace later (one scheduled at a time). */
    private void contextIdle() {
        if (tidyScheduled.compareAndSet(false, true)) {
            TIDIER.schedule(scheduledTidying, graceNanos + 1_000_000L, TimeUnit.NANOSECONDS);
        }
    }

    private void scheduledTidy() {
        tidyScheduled.set(false);
        try {
            if (tidy()) {
                contextIdle();
            }
        } catch (RuntimeException e) {
            FastRmiLog.once("tidy:" + name, "FastRMI: closing spent " + name + " contexts failed: " + e);
        }
    }

    /** The context whose address is {@code address} (one this JVM sent in a negotiation), or null when it is closed. */
    synchronized NativeTransport withAddress(byte[] address) {
        if (current != null && !contextPerPeer && Arrays.equals(current.address(), address)) {
            return current; // (a spare is named by no negotiation)
        }
        for (Retired r : retired) {
            if (Arrays.equals(r.context().address(), address)) {
                return r.context();
            }
        }
        for (PeerContext own : peerContexts.values()) {
            if (Arrays.equals(own.context.address(), address)) {
                return own.context;
            }
        }
        return null;
    }

    /** Peers with a context of their own, not closed yet. */
    synchronized int peerContextsOpen() {
        return peerContexts.size();
    }

    /** Retired contexts not closed yet. */
    synchronized int retiredOpen() {
        return retired.size();
    }

    /** No stream open, and peers kept that are gone: closing it gives back what they hold. */
    private static boolean spent(NativeTransport context) {
        return context.idle() && context.peersGone() > 0;
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
