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
import java.util.ArrayList;
import java.util.List;
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
        boolean closed;

        CountingContext(int number, long limit) {
            this.address = new byte[] {'O', (byte) number};
            this.limit = limit;
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

    private final List<CountingContext> opened = new ArrayList<>();
    private final AtomicLong now = new AtomicLong();

    private TransportContexts contexts(long limit) throws IOException {
        TransportContexts.Opener opener = () -> {
            CountingContext context = new CountingContext(opened.size(), limit);
            opened.add(context);
            return context;
        };
        return new TransportContexts(TransportName.parse("ofi:shm"), opener.open(), opener, GRACE_MILLIS, now::get);
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
