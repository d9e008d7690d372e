package io.fastrmi.fastsockets.ffm;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The downcall handles of libfastrmi.so's stream API. The {@code *Now} variants are critical
 * downcalls with heap access: they take a Java array directly (one copy, no pinning API) and an
 * offset into it (so that no slice is made per call), and must never block, so they are only called with timeout 0; waiting goes through
 * {@code fastrmi_wait_readable} / {@code fastrmi_wait_writable}, which copy nothing. A context
 * whose calls may spin for ever on a dead peer's lock ({@code fastrmi_ctx_may_spin_on_dead_peer})
 * is never called critically but for {@code fastrmi_recv_received_at}, which waits for nothing:
 * {@code send} and {@code recv} through a buffer outside the heap.
 */
final class NativeCalls {

    final MethodHandle ctxOpen;
    final MethodHandle ctxSetWait;
    final MethodHandle ctxAddress;
    final MethodHandle ctxClose;
    final MethodHandle ctxPeersLeft;
    final MethodHandle ctxPeersGone;
    final MethodHandle ctxPeerCanBlockOthers;
    final MethodHandle ctxMaySpinOnDeadPeer;
    final MethodHandle streamOpen;
    final MethodHandle send;
    final MethodHandle recv;
    final MethodHandle sendNow;
    final MethodHandle recvNow;
    final MethodHandle recvReceived;
    final MethodHandle waitReadable;
    final MethodHandle waitReadableAfterNudge;
    final MethodHandle streamNudge;
    final MethodHandle waitWritable;
    final MethodHandle available;
    final MethodHandle shutdownWrite;
    final MethodHandle streamAbort;
    final MethodHandle streamClose;
    final MethodHandle expectPeer;
    final MethodHandle processUid;
    final MethodHandle tcpPeer;
    final MethodHandle processHoldsSocket;
    final MethodHandle strstatus;
    final MethodHandle waitSpinFor;
    final MethodHandle waitLearn;
    final MethodHandle waitMaySpin;
    final MethodHandle waitSpinnersMax;
    final MethodHandle nudgeOpen;
    final MethodHandle nudge;
    final MethodHandle nudgeClose;
    final MethodHandle nudgeWait;
    final MethodHandle socketReadable;

    NativeCalls(Linker linker, SymbolLookup library) {
        Linker.Option critical = Linker.Option.critical(true);
        FunctionDescriptor transfer = FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG);
        // (stream, array, offset, length, timeout, error, error length): the array's segment without a slice
        FunctionDescriptor transferAt = FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT,
                ADDRESS, JAVA_LONG);
        ctxOpen = linker.downcallHandle(find(library, "fastrmi_ctx_open"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
        ctxSetWait = linker.downcallHandle(find(library, "fastrmi_ctx_set_wait"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
        ctxAddress = linker.downcallHandle(find(library, "fastrmi_ctx_address"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        ctxClose = linker.downcallHandle(find(library, "fastrmi_ctx_close"), FunctionDescriptor.ofVoid(ADDRESS));
        ctxPeersLeft = linker.downcallHandle(find(library, "fastrmi_ctx_peers_left"), FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        ctxPeersGone = linker.downcallHandle(find(library, "fastrmi_ctx_peers_gone"), FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        ctxPeerCanBlockOthers = linker.downcallHandle(find(library, "fastrmi_ctx_peer_can_block_others"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        ctxMaySpinOnDeadPeer = linker.downcallHandle(find(library, "fastrmi_ctx_may_spin_on_dead_peer"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        streamOpen = linker.downcallHandle(find(library, "fastrmi_stream_open"), FunctionDescriptor.of(JAVA_INT,
                ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
        send = linker.downcallHandle(find(library, "fastrmi_send"), transfer);
        recv = linker.downcallHandle(find(library, "fastrmi_recv"), transfer);
        sendNow = linker.downcallHandle(find(library, "fastrmi_send_at"), transferAt, critical);
        recvNow = linker.downcallHandle(find(library, "fastrmi_recv_at"), transferAt, critical);
        // Never waits, on any context (not even for the lock): critical everywhere.
        recvReceived = linker.downcallHandle(find(library, "fastrmi_recv_received_at"),
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG), critical);
        waitReadable = linker.downcallHandle(find(library, "fastrmi_wait_readable"),
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
        waitReadableAfterNudge = linker.downcallHandle(find(library, "fastrmi_wait_readable_after_nudge"),
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
        streamNudge = linker.downcallHandle(find(library, "fastrmi_stream_nudge"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG));
        waitWritable = linker.downcallHandle(find(library, "fastrmi_wait_writable"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_LONG));
        available = linker.downcallHandle(find(library, "fastrmi_available"), FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        shutdownWrite = linker.downcallHandle(find(library, "fastrmi_shutdown_write"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
        streamAbort = linker.downcallHandle(find(library, "fastrmi_stream_abort"), FunctionDescriptor.ofVoid(ADDRESS));
        streamClose = linker.downcallHandle(find(library, "fastrmi_stream_close"), FunctionDescriptor.ofVoid(ADDRESS));
        expectPeer = linker.downcallHandle(find(library, "fastrmi_ctx_expect_peer"),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG));
        processUid = linker.downcallHandle(find(library, "fastrmi_process_uid"), FunctionDescriptor.of(JAVA_INT));
        tcpPeer = linker.downcallHandle(find(library, "fastrmi_tcp_peer"), FunctionDescriptor.of(JAVA_INT,
                ADDRESS, JAVA_LONG, JAVA_SHORT, ADDRESS, JAVA_LONG, JAVA_SHORT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
        processHoldsSocket = linker.downcallHandle(find(library, "fastrmi_process_holds_socket"),
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG));
        // Short and never blocking (a look at /proc/loadavg at most every 10 ms): critical.
        waitSpinFor = linker.downcallHandle(find(library, "fastrmi_wait_spin_for"),
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, JAVA_INT, JAVA_LONG), critical);
        waitLearn = linker.downcallHandle(find(library, "fastrmi_wait_learn"),
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT), critical);
        waitMaySpin = linker.downcallHandle(find(library, "fastrmi_wait_may_spin"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), critical);
        waitSpinnersMax = linker.downcallHandle(find(library, "fastrmi_wait_spinners_max"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        nudgeOpen = linker.downcallHandle(find(library, "fastrmi_nudge_open"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        // One write to an eventfd, never blocking: critical.
        nudge = linker.downcallHandle(find(library, "fastrmi_nudge"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG), critical);
        nudgeClose = linker.downcallHandle(find(library, "fastrmi_nudge_close"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
        nudgeWait = linker.downcallHandle(find(library, "fastrmi_nudge_wait"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
        // One poll that never waits: critical.
        socketReadable = linker.downcallHandle(find(library, "fastrmi_socket_readable"),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG), critical);
        strstatus = linker.downcallHandle(find(library, "fastrmi_strstatus"), FunctionDescriptor.of(ADDRESS, JAVA_INT));
    }

    static MemorySegment find(SymbolLookup library, String name) {
        return library.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name + " is not in libfastrmi.so"));
    }
}
