package io.fastrmi.optrmi.lean;

import java.io.InvalidObjectException;
import java.io.StreamCorruptedException;

/**
 * The objects a message has read so far, by handle, as the peer numbers them: what a back reference
 * names. A handle is reserved before its object's contents are read (they may refer back to it).
 */
final class ReadHandles {

    private static final Object UNSHARED = new Object();
    /** A handle the writer used inside data its reader skipped: no reference may name it. */
    private static final Object SKIPPED = new Object();
    /** A message that held more is not allowed to keep its big table for the next. */
    private static final int KEPT_HANDLES = 4096;

    private Object[] handles = new Object[64];
    private int count;

    int count() {
        return count;
    }

    int reserve(boolean unshared) {
        grow();
        int handle = count++;
        handles[handle] = unshared ? UNSHARED : null;
        return handle;
    }

    Object finish(int handle, Object obj, boolean unshared) {
        if (!unshared) {
            handles[handle] = obj;
        }
        return obj;
    }

    /** The object a back reference from the peer names, checked. */
    Object referenced(int handle, boolean unshared) throws java.io.IOException {
        if (handle >= count) {
            throw new StreamCorruptedException("lean stream: a reference to object " + handle + " of " + count);
        }
        if (unshared) {
            throw new InvalidObjectException("cannot read back reference as unshared");
        }
        Object obj = handles[handle];
        if (obj == UNSHARED) {
            throw new InvalidObjectException("cannot read back reference to unshared object");
        }
        if (obj == SKIPPED) {
            throw new StreamCorruptedException("lean stream: a reference to an object its reader skipped");
        }
        return obj;
    }

    /** Later handles keep the writer's numbers: those up to {@code end} that the reader did not reach are skipped. */
    void skipTo(int end) throws StreamCorruptedException {
        if (end < count) {
            throw new StreamCorruptedException("lean stream: a segment announced fewer objects than it held");
        }
        while (count < end) {
            grow();
            handles[count++] = SKIPPED;
        }
    }

    /** The message ended: its objects are forgotten. */
    void clear() {
        java.util.Arrays.fill(handles, 0, count, null);
        if (handles.length > KEPT_HANDLES) {
            handles = new Object[64];
        }
        count = 0;
    }

    private void grow() {
        if (count == handles.length) {
            handles = java.util.Arrays.copyOf(handles, 2 * handles.length);
        }
    }
}
