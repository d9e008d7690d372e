package io.fastrmi.optrmi.lean;

import java.io.IOException;
import java.io.ObjectInputStream;

/**
 * One of a connection's marshal streams for calls' input, and its hold on the connection's
 * {@link LeanReader}. RMI's client frees a call's connection as soon as the reply's value is read,
 * and only then releases the call's input (registers the stubs the reply carried, acknowledges
 * them to the server), on the stream's own state. So the reader's message ends at the free (or at
 * the release, where nothing freed the connection first), and the stream stays the call's until
 * its release: a call that takes the connection meanwhile gets another stream. Each method is
 * called by the thread whose call holds the stream.
 */
public final class InputHold {

    private final LeanReader reader;
    /** The call's message is open in the reader. */
    private boolean messageOpen;
    /** The connection was freed and the call has not released this stream yet. */
    private volatile boolean releasing;

    public InputHold(LeanReader reader) {
        this.reader = reader;
    }

    /** Whether a call may begin on this stream: not while the call before still releases it. */
    public boolean mayBegin() {
        return !releasing;
    }

    /** A call's message begins ({@code facade}: the stream its objects are read through). */
    public void begin(ObjectInputStream facade) throws IOException {
        messageOpen = true;
        reader.beginMessage(facade);
    }

    /**
     * The connection goes back to RMI's pool: the message ends now, before another call can read
     * the connection; the stream stays this call's until {@link #released()}. A reader that fails
     * here is broken, and the pool must not keep the connection.
     */
    public void connectionFreed() throws IOException {
        if (messageOpen) {
            messageOpen = false;
            releasing = true;
            reader.endMessage();
        }
    }

    /** RMI released the call's input: the message ends if the free did not end it, and the stream may begin again. */
    public void released() throws IOException {
        try {
            if (messageOpen) {
                messageOpen = false;
                reader.endMessage();
            }
        } finally {
            releasing = false;
        }
    }
}
