package io.fastrmi.fastsockets.jni;

import io.fastrmi.fastsockets.nativelib.NativeStatus;
import io.fastrmi.fastsockets.nativelib.Nudge;
import java.io.IOException;

/**
 * A nudge's eventfd through the library. The waiter's message buffer is the nudge's own (one
 * waiter at a time); a nudger passes none (any thread nudges) and names the status alone.
 */
final class JniNudge implements Nudge {

    private final int nudge;
    private final byte[] waitError = JniCalls.errorBuffer();

    private JniNudge(int nudge) {
        this.nudge = nudge;
    }

    static JniNudge open() throws IOException {
        byte[] err = JniCalls.errorBuffer();
        int rc = JniCalls.nudgeOpen(err);
        if (rc < 0) {
            throw new IOException(NativeStatus.failure("fastrmi_nudge_open", rc, JniCalls.message(err)));
        }
        return new JniNudge(rc);
    }

    @Override
    public Woken await(int fd, int timeoutMillis) throws IOException {
        int rc = JniCalls.nudgeWait(fd, nudge, timeoutMillis, waitError);
        return switch (rc) {
            case 0 -> Woken.NOTHING;
            case 1 -> Woken.READABLE;
            case 2 -> Woken.NUDGED;
            default -> throw new IOException(NativeStatus.failure("fastrmi_nudge_wait", rc, JniCalls.message(waitError)));
        };
    }

    @Override
    public void nudge() throws IOException {
        int rc = JniCalls.nudge(nudge);
        if (rc != 0) {
            throw new IOException(NativeStatus.failure("fastrmi_nudge", rc, "nudge " + nudge));
        }
    }

    @Override
    public void close() throws IOException {
        byte[] err = JniCalls.errorBuffer();
        int rc = JniCalls.nudgeClose(nudge, err);
        if (rc != 0) {
            throw new IOException(NativeStatus.failure("fastrmi_nudge_close", rc, JniCalls.message(err)));
        }
    }
}
