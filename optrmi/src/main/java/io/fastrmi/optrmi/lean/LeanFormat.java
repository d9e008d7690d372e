package io.fastrmi.optrmi.lean;

/**
 * The lean wire format, version 2: what one direction of a negotiated connection carries.
 *
 * <p><b>Frames.</b> A message (one RMI call, or one reply) is one or more frames: a 4-byte
 * big-endian header, {@code length | flags}, then {@code length} bytes. The last frame of a
 * message has {@link #LAST_FRAME} set. The reader reads whole frames and never past the last one,
 * so RMI's own bytes after a message (the next call, a DGC ack) are never consumed. A
 * {@link #DESCRIPTOR_FRAME} carries the class descriptors that the data frames after it are the
 * first to use: the reader takes them into its class table whatever becomes of the data, so the
 * tables stay in step when a reader skips data it did not read. A message whose data fails to
 * decode (a class that differs, a filter's rejection) is not read further: its connection closes
 * once the reply (RMI's exception) is out.
 *
 * <p><b>Values.</b> Primitives are written as {@code DataOutput} writes them (big-endian), with no
 * block-data framing. Objects are tagged: {@link #NULL}; {@link #REF} and a handle (objects of this
 * message, numbered from 0 in the order they were first written); {@link #STRING}; {@link #OBJECT},
 * a class and the instance's data; {@link #CLASS}, a class object. Counts, handles and class ids
 * are unsigned LEB128 varints.
 *
 * <p><b>Classes.</b> A class is its id in this direction's class table; the first time a class
 * crosses, a descriptor frame before the data gives its id (the table's size) and its descriptor
 * (kind, name, a codebase annotation or none, and for each
 * serializable class of its hierarchy the name, serialVersionUID and fields; an enum's constants;
 * a proxy's interfaces). The receiver checks it against its own class once, then trusts the id.
 * Tables live as long as the connection; handles are cleared after each message. No codebase
 * annotation is ever sent.
 *
 * <p><b>Instance data.</b> For each serializable class of the hierarchy, topmost first: without a
 * writeObject method, its primitive fields (the JDK's field order, big-endian) then its object
 * fields; with one, a segment. An Externalizable's data is a segment. A segment is a 4-byte length
 * and a 4-byte count of the handles written inside it, then its items, as the JDK's block-data mode
 * keeps them apart: {@link #BLOCK}s of primitive data (what was written between two objects), objects,
 * and {@link #DEFAULT_FIELDS} (defaultWriteObject's or writeFields' data). So a class whose readObject
 * reads other than its writeObject wrote meets the JDK's exceptions (OptionalDataException,
 * EOFException, StreamCorruptedException), and what a reader leaves unread is skipped as the JDK
 * skips it (its objects read, so filters and handles count them). Arrays of primitives are their
 * elements in bulk, in the sender's native byte order (the handshake ensures both ends share it).
 * Enums are their ordinal. Records are their fields, read back through the canonical constructor.
 */
final class LeanFormat {

    static final byte NULL = 0;
    static final byte REF = 1;
    static final byte STRING = 2;
    static final byte OBJECT = 3;
    static final byte CLASS = 4;
    /** In a segment only: primitive data a writeObject or writeExternal wrote between objects (a 4-byte length, then the bytes). */
    static final byte BLOCK = 5;
    /** In a segment only: what defaultWriteObject or writeFields wrote (the class's fields follow). */
    static final byte DEFAULT_FIELDS = 6;

    /** Class kinds in a descriptor. */
    static final byte KIND_SERIAL = 1;
    static final byte KIND_EXTERNAL = 2;
    static final byte KIND_ENUM = 3;
    static final byte KIND_RECORD = 4;
    static final byte KIND_PROXY = 5;
    static final byte KIND_ARRAY = 6;
    /** Not serializable: only its class object crosses. */
    static final byte KIND_PLAIN = 7;
    static final byte KIND_PRIMITIVE = 8;

    static final int LAST_FRAME = 0x8000_0000;
    static final int DESCRIPTOR_FRAME = 0x4000_0000;
    static final int FRAME_LENGTH = 0x3FFF_FFFF;
    /** The writer sends a frame when this much is buffered (segments excepted). */
    static final int FRAME_TARGET = 64 * 1024;
    /**
     * A primitive array this large (outside a segment) goes straight between the array and a
     * native stream, where the connection has one: {@code BulkOutput}, {@code BulkInput}.
     */
    static final int BULK_BYTES_MIN = 64 * 1024;
    /** The most a frame header may announce: a larger one is corrupt. */
    static final int MAX_FRAME = FRAME_LENGTH;
    /** Segment header: length, handle count. */
    static final int SEGMENT_HEADER = 8;
    /** Block header: {@link #BLOCK}, length. */
    static final int BLOCK_HEADER = 5;
    /** The most interfaces a proxy class may have (as the JDK's limit). */
    static final int MAX_PROXY_INTERFACES = 65535;
    /** The most fields or slots a descriptor may list. */
    static final int MAX_DESCRIPTOR_ENTRIES = 65535;
    /** Strings in descriptors (class and field names). */
    static final int MAX_NAME_CHARS = 65535;

    private LeanFormat() {
    }

    static String kindName(byte kind) {
        return switch (kind) {
            case KIND_SERIAL -> "serializable";
            case KIND_EXTERNAL -> "externalizable";
            case KIND_ENUM -> "enum";
            case KIND_RECORD -> "record";
            case KIND_PROXY -> "proxy";
            case KIND_ARRAY -> "array";
            case KIND_PLAIN -> "not serializable";
            case KIND_PRIMITIVE -> "primitive";
            default -> "unknown kind " + kind;
        };
    }
}
