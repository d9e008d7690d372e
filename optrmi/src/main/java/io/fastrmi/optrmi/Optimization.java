package io.fastrmi.optrmi;

import java.util.Collection;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;

/**
 * The lean wire format's optimizations, each with the name the config file uses and its bit in the
 * handshake record. The one list of them: the config, the handshake and the negotiation all use it.
 * A bit is never reused: peers of other versions read it. Bit 31 is the handshake's own (an
 * acknowledgement it negotiates alongside), never an optimization's.
 */
public enum Optimization {
    CLASS_TABLE("class-table", 0),
    NO_ANNOTATIONS("no-annotations", 1),
    /**
     * The lean format's own framing. Its bit names the format's version: 2 was version 1; since
     * version 2 (a writeObject's data kept as the JDK's block-data mode keeps it) it is 4, so a peer
     * of the other version sees no lean format and both use JDK serialization.
     */
    BLOCK_DATA("block-data", 4),
    BULK_ARRAYS("bulk-arrays", 3);

    private final String configName;
    private final int bit;

    Optimization(String configName, int bit) {
        this.configName = configName;
        this.bit = bit;
    }

    /** The name in the config file and in messages, "class-table". */
    public String configName() {
        return configName;
    }

    /** Its bit in the handshake record's optimization set. */
    public int bit() {
        return bit;
    }

    /** The optimization a config file names, if any. */
    public static Optional<Optimization> named(String configName) {
        for (Optimization o : values()) {
            if (o.configName.equals(configName)) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }

    /** The handshake's bit set of these optimizations. */
    public static int bits(Collection<Optimization> optimizations) {
        int bits = 0;
        for (Optimization o : optimizations) {
            bits |= 1 << o.bit;
        }
        return bits;
    }

    /** The optimizations of a bit set; bits this version does not know (a newer peer's) are left out. */
    public static Set<Optimization> fromBits(int bits) {
        Set<Optimization> set = EnumSet.noneOf(Optimization.class);
        for (Optimization o : values()) {
            if ((bits & 1 << o.bit) != 0) {
                set.add(o);
            }
        }
        return set;
    }

    /** The config names in the enum's order, "class-table,bulk-arrays" (empty for none). */
    public static String configNames(Collection<Optimization> optimizations, String separator) {
        StringJoiner names = new StringJoiner(separator);
        for (Optimization o : values()) {
            if (optimizations.contains(o)) {
                names.add(o.configName);
            }
        }
        return names.toString();
    }

    /**
     * Whether a negotiated set puts a connection on the lean wire format: its version 2 is the
     * class table, its own framing and bulk arrays together; no-annotations (one classpath, so no
     * codebase annotations) is a choice within it.
     */
    public static boolean leanFormat(Set<Optimization> negotiated) {
        return negotiated.contains(CLASS_TABLE) && negotiated.contains(BLOCK_DATA) && negotiated.contains(BULK_ARRAYS);
    }

    /** Every optimization. */
    public static Set<Optimization> all() {
        return EnumSet.allOf(Optimization.class);
    }
}
