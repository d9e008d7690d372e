package io.fastrmi.fastsockets.ffm;

import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.Nudge;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A nudge's eventfd through the library. The waiter's message buffer is the nudge's own (one
 * waiter at a time); a nudger passes none (any thread nudges) and names the status alone.
 */
final class FfmNudge implements Nudge {

    private final NativeCalls calls;
    private final int nudge;
    private final MemorySegment waitError = Arena.ofAuto().allocate(FfmTransport.ERROR_BUFFER);

    private FfmNudge(NativeCalls calls, int nudge) {
        this.calls = calls;
        this.nudge = nudge;
    }

    static FfmNudge open(NativeCalls calls) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(FfmTransport.ERROR_BUFFER);
            int rc = (int) calls.nudgeOpen.invokeExact(err, (long) FfmTransport.ERROR_BUFFER);
            if (rc < 0) {
                throw new IOException(NativeStatus.failure("fastrmi_nudge_open", rc, err.getString(0)));
            }
            return new FfmNudge(calls, rc);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("fastrmi_nudge_open: " + t, t);
        }
    }

    @Override
    public Woken await(int fd, int timeoutMillis) throws IOException {
        int rc;
        try {
            rc = (int) calls.nudgeWait.invokeExact(fd, nudge, timeoutMillis, waitError, (long) FfmTransport.ERROR_BUFFER);
        } catch (Throwable t) {
            throw new IOException("fastrmi_nudge_wait: " + t, t);
        }
        return switch (rc) {
            case 0 -> Woken.NOTHING;
            case 1 -> Woken.READABLE;
            case 2 -> Woken.NUDGED;
            default -> throw new IOException(NativeStatus.failure("fastrmi_nudge_wait", rc, waitError.getString(0)));
        };
    }

    @Override
    public void nudge() throws IOException {
        int rc;
        try {
            rc = (int) calls.nudge.invokeExact(nudge, MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw new IOException("fastrmi_nudge: " + t, t);
        }
        if (rc != 0) {
            throw new IOException(NativeStatus.failure("fastrmi_nudge", rc, "nudge " + nudge));
        }
    }

    @Override
    public void close() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(FfmTransport.ERROR_BUFFER);
            int rc = (int) calls.nudgeClose.invokeExact(nudge, err, (long) FfmTransport.ERROR_BUFFER);
            if (rc != 0) {
                throw new IOException(NativeStatus.failure("fastrmi_nudge_close", rc, err.getString(0)));
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("fastrmi_nudge_close: " + t, t);
        }
    }
}
