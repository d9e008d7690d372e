package io.fastrmi.fastsockets.ffm;

import io.fastrmi.config.TransportName;
import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.NativeTransport;
import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/**
 * {@code libfastrmi.so} through the FFM API. The library (and with it libfabric and UCX) is loaded
 * once, for the life of the JVM; its own constructor keeps UCX and libfabric off the JVM's signals
 * ({@code native/src/signals.c}).
 */
public final class FfmNativeLibrary implements NativeLibrary {


    private final MethodHandle version;
    private final MethodHandle ofiVersion;
    private final MethodHandle ucxVersion;
    private final NativeCalls calls;

    public FfmNativeLibrary(Path file) {
        Linker linker = Linker.nativeLinker();
        SymbolLookup library = SymbolLookup.libraryLookup(file, Arena.global());
        version = linker.downcallHandle(find(library, "fastrmi_version"), FunctionDescriptor.of(ValueLayout.ADDRESS));
        ofiVersion = linker.downcallHandle(find(library, "fastrmi_ofi_version"), FunctionDescriptor.of(ValueLayout.JAVA_INT));
        ucxVersion = linker.downcallHandle(find(library, "fastrmi_ucx_version"), FunctionDescriptor.of(ValueLayout.ADDRESS));
        calls = new NativeCalls(linker, library);
    }

    @Override
    public NativeTransport openTransport(TransportName transport, int spinMicros, WaitMode wait) throws IOException {
        return FfmTransport.open(calls, transport, spinMicros, wait);
    }

    @Override
    public WaitBudget waitBudget(WaitMode wait, long maxSpinNanos) {
        return new FfmWaitBudget(calls, wait, maxSpinNanos);
    }

    @Override
    public io.fastrmi.fastsockets.nativelib.Nudge openNudge() throws IOException {
        return FfmNudge.open(calls);
    }

    @Override
    public int spinnersMax(int usableCpus) {
        try {
            return (int) calls.waitSpinnersMax.invokeExact(usableCpus);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_wait_spinners_max", t);
        }
    }

    @Override
    public int processUid() {
        try {
            return (int) calls.processUid.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_process_uid", t);
        }
    }

    @Override
    public PeerSocket tcpPeer(java.net.InetSocketAddress peer, java.net.InetSocketAddress own) throws IOException {
        byte[] peerIp = peer.getAddress().getAddress();
        byte[] ownIp = own.getAddress().getAddress();
        if (peerIp.length != ownIp.length) {
            return null; // one IPv4, one IPv6: no connection of this host looks so
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment uid = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment inode = arena.allocate(ValueLayout.JAVA_LONG);
            MemorySegment err = arena.allocate(FfmTransport.ERROR_BUFFER);
            int rc = (int) calls.tcpPeer.invokeExact(arena.allocateFrom(ValueLayout.JAVA_BYTE, peerIp), (long) peerIp.length,
                    (short) peer.getPort(), arena.allocateFrom(ValueLayout.JAVA_BYTE, ownIp), (long) ownIp.length,
                    (short) own.getPort(), uid, inode, err, (long) FfmTransport.ERROR_BUFFER);
            if (NativeStatus.ERR_NOT_FOUND.is(rc)) {
                return null;
            }
            if (rc != 0) {
                throw new IOException("cannot learn who owns " + peer + ": "
                        + NativeStatus.failure("fastrmi_tcp_peer", rc, err.getString(0)));
            }
            return new PeerSocket(Integer.toUnsignedLong(uid.get(ValueLayout.JAVA_INT, 0)), inode.get(ValueLayout.JAVA_LONG, 0));
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("fastrmi_tcp_peer: " + t, t);
        }
    }

    @Override
    public boolean processHoldsSocket(long pid, long inode) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(FfmTransport.ERROR_BUFFER);
            int rc = (int) calls.processHoldsSocket.invokeExact(pid, inode, err, (long) FfmTransport.ERROR_BUFFER);
            return NativeStatus.holdsSocket(pid, rc, rc < 0 ? err.getString(0) : null);
        } catch (IOException e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("fastrmi_process_holds_socket: " + t, t);
        }
    }

    @Override
    public boolean socketReadable(int fd) throws IOException {
        int rc;
        try {
            rc = (int) calls.socketReadable.invokeExact(fd, MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw new IOException("fastrmi_socket_readable: " + t, t);
        }
        return NativeStatus.socketReadable(fd, rc);
    }

    private static MemorySegment find(SymbolLookup library, String name) {
        return library.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name + " is not in libfastrmi.so"));
    }

    @Override
    public String version() {
        return staticString(version);
    }

    @Override
    public String ofiVersion() {
        try {
            return NativeLibrary.ofiVersionName((int) ofiVersion.invokeExact());
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_ofi_version", t);
        }
    }

    @Override
    public String ucxVersion() {
        return staticString(ucxVersion);
    }

    @Override
    public String statusName(int status) {
        try {
            MemorySegment text = (MemorySegment) calls.strstatus.invokeExact(status);
            return text.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_strstatus", t);
        }
    }

    private static String staticString(MethodHandle function) {
        try {
            MemorySegment text = (MemorySegment) function.invokeExact();
            return text.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("libfastrmi.so", t);
        }
    }
}
