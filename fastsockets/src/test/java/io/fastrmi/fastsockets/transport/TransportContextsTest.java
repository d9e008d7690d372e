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
