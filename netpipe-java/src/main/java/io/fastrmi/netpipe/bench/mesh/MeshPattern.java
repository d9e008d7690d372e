package io.fastrmi.netpipe.bench.mesh;

import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/** Who calls whom in a run of the mesh benchmark ({@link Mesh}), among hosts 0 .. n-1. */
public enum MeshPattern {
    /** Every host but host 0 calls host 0 (a master and its workers). */
    STAR,
    /** Every host calls every other one. */
    ALL_TO_ALL;

    /** The hosts that host {@code self} of {@code hosts} calls, in the order its threads take them. */
    public List<Integer> targets(int self, int hosts) {
        return switch (this) {
            case STAR -> self == 0 ? List.of() : List.of(0);
            case ALL_TO_ALL -> IntStream.range(1, hosts).map(step -> (self + step) % hosts).boxed().toList();
        };
    }

    /** The name on the command line and in the results: {@code star}, {@code all-to-all}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static MeshPattern ofLabel(String label) {
        for (MeshPattern pattern : values()) {
            if (pattern.label().equals(label)) {
                return pattern;
            }
        }
        throw new IllegalArgumentException("unknown pattern " + label + " (star, all-to-all)");
    }
}
