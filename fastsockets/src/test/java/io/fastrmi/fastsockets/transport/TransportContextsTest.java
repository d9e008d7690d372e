package io.fastrmi.fastsockets.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.nativelib.NativeStream;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Retiring nearly full contexts, on contexts that only count (no library: the IT runs the real ones). */
class TransportContextsTest {

    private static final long GRACE_MILLIS = 1000;

    /** A context that holds {@code limit} peers (-1: no limit) and counts its open streams. */
    private static final class CountingContext implements NativeTransport {
        final byte[] address;
        final long limit;
        long peers;
        int streams;
        long gone;
        volatile boolean closed;
        final boolean peerCanBlockOthers;

        CountingContext(int number, long limit) {
            this(number, limit, false);
        }

        CountingContext(int number, long limit, boolean peerCanBlockOthers) {
            this.address = new byte[] {'O', (byte) number, (byte) (number >> 8)};
            this.limit = limit;
            this.peerCanBlockOthers = peerCanBlockOthers;
        }

        @Override
        public boolean peerCanBlockOthers() {
            return peerCanBlockOthers;
        }

        @Override
        public TransportName name() {
            return TransportName.parse("ofi:shm");
        }

        @Override
        public byte[] address() {
            return address.clone();
        }

        @Override
        public NativeStream open(byte[] peerAddress, long localId, long peerId) throws IOException {
            if (closed) {
                throw new IOException("closed");
            }
            peers++;
            streams++;
            return null;
        }

        @Override
        public void expectPeer(java.net.InetAddress ip) {
        }

        @Override
        public long peersLeft() {
            return limit < 0 ? -1 : limit - peers;
        }

        @Override
        public long peersGone() {
            return gone;
        }

        @Override
        public boolean idle() {
            return streams == 0;
        }

        @Override
        public boolean closeIfIdle() {
            if (streams > 0) {
                return false;
            }
            closed = true;
            return true;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** Spares open on the tidier's thread. */
    private final List<CountingContext> opened = new CopyOnWriteArrayList<>();
    private final AtomicLong now = new AtomicLong();

    private TransportContexts contexts(long limit) throws IOException {
        return contexts(limit, false);
    }

    private TransportContexts contexts(long limit, boolean peerCanBlockOthers) throws IOException {
        TransportContexts.Opener opener = () -> {
            CountingContext context = new CountingContext(opened.size(), limit, peerCanBlockOthers);
            opened.add(context);
            return context;
        };
        return new TransportContexts(TransportName.parse(peerCanBlockOthers ? "ucx:shm" : "ofi:shm"), opener.open(),
                opener, GRACE_MILLIS, now::get);
    }

    /** Waits (a bound, not a timing) for the tidier's thread to have opened {@code count} contexts in all. */
    private void awaitOpened(int count) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (opened.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(count, opened.size(), "contexts opened");
    }

    @Test
    void whereADeadPeerCanBlockOthersEachPeerGetsAContextOfItsOwn() throws Exception {
        TransportContexts contexts = contexts(-1, true);
        NativeTransport a = contexts.forPeer("a");
        assertSame(opened.get(0), a, "the first peer takes the context opened ahead");
        awaitOpened(2); // the spare for the next new peer
        NativeTransport b = contexts.forPeer("b");
        assertNotSame(a, b);
        assertSame(opened.get(1), b, "the next peer takes the spare");
        assertSame(a, contexts.forPeer("a"), "a peer keeps its context");
        assertSame(a, contexts.withAddress(a.address()));
        assertSame(b, contexts.withAddress(b.address()));
        awaitOpened(3);
        assertNull(contexts.withAddress(opened.get(2).address()), "the spare is nobody's yet");
        assertEquals(2, contexts.peerContextsOpen());
    }

    @Test
    void aPeersContextClosesAGraceAfterItsLastStreamAndItsNextNegotiationGetsAFreshOne() throws Exception {
        TransportContexts contexts = contexts(-1, true);
        CountingContext a = (CountingContext) contexts.forPeer("a");
        a.open(new byte[] {1}, 1, 1);
        now.addAndGet(GRACE_MILLIS * 1_000_000L);
        assertFalse(contexts.tidy());
        assertFalse(a.closed, "closed with a stream open");
        a.streams = 0;
        assertSame(a, contexts.forPeer("a"), "named again: a negotiation may pair on it");
        assertTrue(contexts.tidy(), "idle, named within the grace: looked at again later");
        assertFalse(a.closed);
        now.addAndGet(GRACE_MILLIS * 1_000_000L);
        assertFalse(contexts.tidy());
        assertTrue(a.closed);
        assertNull(contexts.withAddress(a.address()));
        assertEquals(0, contexts.peerContextsOpen());
        awaitOpened(2);
        NativeTransport again = contexts.forPeer("a");
        assertNotSame(a, again);
        assertFalse(((CountingContext) again).closed);
    }

    @Test
    void peersBeyondTheMostWithAContextEachAreRefusedTheTransport() throws Exception {
        TransportContexts contexts = contexts(-1, true);
        for (int i = 0; i < TransportContexts.PEER_CONTEXTS_MAX; i++) {
            assertTrue(contexts.forPeer(i) != null, "peer " + i);
        }
        assertNull(contexts.forPeer("one more"));
        assertTrue(contexts.forPeer(7) != null, "a peer that has one keeps it");
    }

    @Test
    void whereNoPeerCanBlockOthersPeersShareTheContext() throws IOException {
        TransportContexts contexts = contexts(-1, false);
        assertSame(contexts.forPeer("a"), contexts.forPeer("b"));
        assertEquals(1, opened.size());
    }

    @Test
    void aContextWithoutALimitIsNeverRetired() throws IOException {
        TransportContexts contexts = contexts(-1);
        NativeTransport first = contexts.forNewPeer();
        for (int i = 0; i < 1000; i++) {
            contexts.forNewPeer().open(new byte[] {1}, i, i);
        }
        assertSame(first, contexts.forNewPeer());
        assertEquals(1, opened.size());
    }

    @Test
    void aNearlyFullContextIsRetiredAndNewPeersGetAFreshOne() throws IOException {
        TransportContexts contexts = contexts(TransportContexts.HEADROOM + 3);
        NativeTransport first = contexts.forNewPeer();
        for (int i = 0; i < 3; i++) {
            assertSame(first, contexts.forNewPeer());
            first.open(new byte[] {1}, i, i);
        }
        NativeTransport second = contexts.forNewPeer();
        assertNotSame(first, second);
        assertEquals(1, contexts.retiredOpen());
        // A negotiation that named the first context still pairs on it.
        assertSame(first, contexts.withAddress(first.address()));
        assertSame(second, contexts.withAddress(second.address()));
        assertNull(contexts.withAddress(new byte[] {'O', 99}));
    }

    @Test
    void aRetiredContextClosesOnlyWhenIdleAndPastItsGrace() throws IOException {
        TransportContexts contexts = contexts(TransportContexts.HEADROOM + 1);
        CountingContext first = (CountingContext) contexts.forNewPeer();
        first.open(new byte[] {1}, 1, 1);
        contexts.forNewPeer(); // retires the first
        first.streams = 0; // its last stream closed
        contexts.forNewPeer();
        assertFalse(first.closed, "closed within its grace: a negotiation may still name it");
        now.addAndGet(GRACE_MILLIS * 1_000_000L);
        first.streams = 1;
        contexts.forNewPeer();
        assertFalse(first.closed, "closed with a stream open");
        first.streams = 0;
        contexts.forNewPeer();
        assertTrue(first.closed);
        assertEquals(0, contexts.retiredOpen());
        assertNull(contexts.withAddress(first.address()));
    }

    @Test
    void aSpentContextIsClosedOnceNoNegotiationCanNameItAndTheNextPeerGetsAFreshOne() throws IOException {
        TransportContexts contexts = contexts(-1);
        CountingContext first = (CountingContext) contexts.forNewPeer();
        first.open(new byte[] {1}, 1, 1);
        first.gone = 1; // its peer died: the stream closed, the peer's place stays
        assertFalse(contexts.tidy(), "a context with a stream open is not spent");
        first.streams = 0;
        assertTrue(contexts.tidy(), "spent, but named within the grace: looked at again later");
        assertFalse(first.closed, "closed within its grace: a negotiation may still name it");
        now.addAndGet(GRACE_MILLIS * 1_000_000L);
        assertFalse(contexts.tidy());
        assertTrue(first.closed, "a spent context out of every negotiation's reach is closed");
        assertNull(contexts.withAddress(first.address()));
        NativeTransport second = contexts.forNewPeer();
        assertNotSame(first, second);
        assertEquals(2, opened.size());
    }

    @Test
    void aNewPeerRetiresASpentContext() throws IOException {
        TransportContexts contexts = contexts(-1);
        CountingContext first = (CountingContext) contexts.forNewPeer();
        first.open(new byte[] {1}, 1, 1);
        assertSame(first, contexts.forNewPeer(), "a context with gone peers but a stream open serves on");
        first.gone = 2;
        assertSame(first, contexts.forNewPeer(), "a context with a stream open serves on");
        first.streams = 0;
        NativeTransport second = contexts.forNewPeer();
        assertNotSame(first, second);
        assertEquals(1, contexts.retiredOpen());
        assertSame(first, contexts.withAddress(first.address()), "a negotiation that named it still pairs on it");
    }

    @Test
    void whenNoFreshContextOpensTheCurrentOneServesWhileItLasts() throws IOException {
        TransportContexts contexts = new TransportContexts(TransportName.parse("ofi:shm"),
                new CountingContext(0, TransportContexts.HEADROOM + 1), () -> {
                    throw new IOException("no more shared memory");
                }, GRACE_MILLIS, now::get);
        NativeTransport first = contexts.forNewPeer();
        first.open(new byte[] {1}, 1, 1);
        assertSame(first, contexts.forNewPeer());
        assertEquals(0, contexts.retiredOpen());
    }
}
