package io.fastrmi.optrmi.lean;

import java.io.EOFException;
import java.io.IOException;
import java.io.OptionalDataException;
import java.io.StreamCorruptedException;

/**
 * What a class's writeObject or writeExternal wrote, while its readObject or readExternal reads it:
 * the JDK's block-data mode. Its segment's items ({@link LeanFormat#BLOCK}s of primitive data,
 * objects, {@link LeanFormat#DEFAULT_FIELDS}) keep primitive data and objects apart, so a reader that
 * reads other than was written meets the JDK's answer: an object where primitive data is next is
 * {@link OptionalDataException} (with the bytes left in the JDK's block, or at the end of the data),
 * primitive data past a block is {@link EOFException}, default fields the writer did not write are
 * {@link StreamCorruptedException}, default fields read before a block is done are
 * {@code IllegalStateException("unread block data")}. A check that answers so consumes nothing, as
 * the JDK's does not: a class may catch the exception and read on. One per nesting level of a reader,
 * reused.
 */
final class CustomData {

    /** The JDK frames block data in blocks of at most this many bytes. */
    private static final int JDK_BLOCK = 1024;

    private final InBuffer in;
    private final JdkFilterModel jdk;
    /** The class whose data this is (null: an Externalizable's). */
    private LeanClass.Slot slot;
    private String owner;
    /** False: the writer had no writeObject: no items, the default fields inline. */
    private boolean written;
    /** Where the open block ends (a stream offset), or -1. */
    private long blockEnd;
    private long blockLength;

    CustomData(InBuffer in, JdkFilterModel jdk) {
        this.in = in;
        this.jdk = jdk;
    }

    /** Starts reading a class's data; {@code owner} names the hook in errors. */
    CustomData start(LeanClass.Slot slot, String owner, boolean written) {
        this.slot = slot;
        this.owner = owner;
        this.written = written;
        this.blockEnd = -1;
        this.blockLength = 0;
        return this;
    }

    boolean written() {
        return written;
    }

    LeanClass.Slot slot() {
        return slot;
    }

    String owner() {
        return owner;
    }

    /** Bytes left in the open block. */
    long blockLeft() {
        long left = blockEnd - in.position();
        return blockEnd < 0 || left < 0 ? 0 : left;
    }

    /** Before {@code n} bytes of primitive data are read: they must be in a block. */
    void take(long n) throws IOException {
        if (blockLeft() == 0 && !nextBlock()) {
            throw new EOFException("lean stream: " + owner + " reads primitive data where " + what());
        }
        if (blockLeft() < n) {
            throw new EOFException("lean stream: " + owner + " reads " + n + " bytes of primitive data where "
                    + blockLeft() + " are left before an object or the end of its data");
        }
    }

    /** How much primitive data can be read now, up to {@code wanted} (0: none, an object or the end is next). */
    long available(long wanted) throws IOException {
        if (blockLeft() == 0 && !nextBlock()) {
            return 0;
        }
        return Math.min(wanted, blockLeft());
    }

    /** Before an object is read. */
    void beforeObject() throws IOException {
        long left = blockLeft();
        if (left > 0) {
            throw optionalData(left);
        }
        if (!written || in.atLimit()) {
            jdk.optionalDataAhead();
            throw JdkSerialClasses.optionalDataEnd();
        }
        int tag = in.peekByte();
        if (tag == LeanFormat.BLOCK) {
            nextBlock();
            jdk.optionalDataAhead();
            throw optionalData(blockLeft());
        }
        if (tag == LeanFormat.DEFAULT_FIELDS) {
            throw new StreamCorruptedException("lean stream: " + owner + " reads an object where its writer wrote default fields");
        }
    }

    /** Before defaultReadObject or readFields: consumes the writer's mark of them. */
    void beforeDefaultFields() throws IOException {
        if (blockLeft() > 0) {
            throw new IllegalStateException("unread block data");
        }
        if (!written) {
            return; // inline, as the writer had no writeObject
        }
        if (!in.atLimit() && in.peekByte() == LeanFormat.DEFAULT_FIELDS) {
            in.readByte();
            return;
        }
        if (slot.primDataSize > 0 || slot.objectFields > 0) {
            throw new StreamCorruptedException("lean stream: " + owner + " reads default fields its writer did not write");
        }
    }

    /**
     * The next item of what the reader left, after its hook returned: a block is skipped and true
     * returned; an object or default fields are left for the caller (true); false at the end.
     */
    boolean skipBlock() throws IOException {
        if (!written) {
            return false;
        }
        long left = blockLeft();
        if (left > 0) {
            if (in.skip(left) != left) {
                throw new EOFException("lean stream: the message ended inside a block of " + owner + "'s data");
            }
            jdk.blockData(left);
            return true;
        }
        if (in.atLimit()) {
            return false;
        }
        if (in.peekByte() == LeanFormat.BLOCK) {
            nextBlock();
        }
        return true;
    }

    /** Whether default fields are next (the mark consumed). */
    boolean defaultFieldsNext() throws IOException {
        if (!in.atLimit() && in.peekByte() == LeanFormat.DEFAULT_FIELDS) {
            in.readByte();
            return true;
        }
        return false;
    }

    private boolean nextBlock() throws IOException {
        if (!written || in.atLimit()) {
            return false;
        }
        int tag = in.peekByte();
        if (tag == LeanFormat.DEFAULT_FIELDS) {
            throw new StreamCorruptedException("lean stream: " + owner + " reads primitive data where its writer wrote default fields");
        }
        if (tag != LeanFormat.BLOCK) {
            return false;
        }
        in.readByte();
        int length = in.readInt();
        if (length <= 0 || in.position() + length > in.limit()) {
            throw new StreamCorruptedException("lean stream: a block of " + length + " bytes in " + owner + "'s data");
        }
        blockEnd = in.position() + length;
        blockLength = length;
        jdk.blockStarts();
        return true;
    }

    private String what() {
        if (!written || in.atLimit()) {
            return "its data has ended";
        }
        return "its writer wrote an object";
    }

    /** The JDK's OptionalDataException: the bytes left in its current block of at most 1 KiB. */
    private OptionalDataException optionalData(long left) {
        long read = blockLength - left;
        long chunkEnd = Math.min(blockLength, (read / JDK_BLOCK + 1) * JDK_BLOCK);
        return JdkSerialClasses.optionalData((int) (chunkEnd - read));
    }
}
