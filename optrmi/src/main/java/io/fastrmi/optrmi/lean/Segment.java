package io.fastrmi.optrmi.lean;

import java.io.EOFException;
import java.io.IOException;
import java.io.StreamCorruptedException;

/**
 * A writeObject's or writeExternal's data being read: its header said how long it is and how many
 * objects its writer numbered in it. Reads stay within it; at its end what its reader left is
 * skipped, and later handles keep the writer's numbers.
 */
final class Segment {

    private final long outerLimit;
    private final int handlesAtEnd;

    private Segment(long outerLimit, int handlesAtEnd) {
        this.outerLimit = outerLimit;
        this.handlesAtEnd = handlesAtEnd;
    }

    /** Reads a segment's header and keeps reads within it; {@code what} and {@code owner} name it in errors. */
    static Segment open(InBuffer in, ReadHandles handles, String what, String owner) throws IOException {
        int length = in.readInt();
        int count = in.readInt();
        if (length < 0 || count < 0 || count > length || in.position() + length > in.limit()) {
            throw new StreamCorruptedException("lean stream: " + what + " segment of " + length + " bytes, "
                    + count + " objects, in " + owner);
        }
        Segment segment = new Segment(in.limit(), handles.count() + count);
        in.setLimit(in.position() + length);
        return segment;
    }

    /** Leaves the segment: what its reader left unread is skipped (it must all be there). */
    void end(InBuffer in, JdkFilterModel jdk, ReadHandles handles) throws IOException {
        long end = in.limit();
        in.skip(end - in.position());
        jdk.customDataEnd();
        if (in.position() != end) {
            throw new EOFException("lean stream: the message ended inside a writeObject's or writeExternal's data");
        }
        in.setLimit(outerLimit);
        handles.skipTo(handlesAtEnd);
    }
}
