package io.fastrmi.fastsockets.handshake;

/**
 * The bytes of RMI's own wire protocol (JRMP) that the upgrade offer builds on. A client opens with
 * the magic, the version and a protocol byte; a standard server answers a protocol it does not know
 * with {@link #PROTOCOL_NACK} and closes, which is how a client learns the peer has no agent.
 */
public final class Jrmp {

    public static final int MAGIC = 0x4a524d49; // "JRMI"
    public static final short VERSION = 2;
    static final int PROTOCOL_NACK = 0x4f;
    /** Our protocol byte: standard RMI knows 0x4b (stream), 0x4c (single op) and 0x4d (multiplex). */
    public static final int PROTOCOL_FASTRMI = 0x46; // 'F'
    /** One call, then the connection closes: what FastRMI's agent asks for DGC's calls ({@code DgcConnections}). */
    public static final byte PROTOCOL_SINGLE_OP = 0x4c;
    /** Length of the opening: magic, version, protocol. */
    public static final int OPENING_LENGTH = 7;

    private Jrmp() {
    }
}
