package io.fastrmi.netpipe.np;

import io.fastrmi.netpipe.bench.objects.Int32;
import io.fastrmi.netpipe.bench.objects.Int4Null2;
import io.fastrmi.netpipe.bench.objects.Node;
import java.util.function.Supplier;

/**
 * The objects of KaRMI's kernels (seed 001, section 6.1) by name: {@code null}, {@code int32} (32 int
 * fields), {@code int4null2} (4 ints and 2 null references), {@code tree15} (a full binary tree of 15
 * nodes), and arrays {@code float:N}, {@code byte:N}, {@code int:N}.
 */
public record KarmiObject(String name, int arrayBytes, Supplier<Object> make) {

    /** The names {@link #parse} takes, for usage lines. */
    public static final String NAMES = "null, int32, int4null2, tree15, float:N, byte:N, int:N";

    private static final int MAX_ELEMENTS = 64 * 1024 * 1024;

    /** A fresh instance (the kernels send the same one every call, as RMI applications often do). */
    public Object create() {
        return make.get();
    }

    /** @throws IllegalArgumentException naming what is wrong with {@code name} */
    public static KarmiObject parse(String name) {
        switch (name) {
            case "null":
                return new KarmiObject(name, 0, () -> null);
            case "int32":
                return new KarmiObject(name, 0, () -> Int32.numbered(1));
            case "int4null2":
                return new KarmiObject(name, 0, () -> Int4Null2.numbered(1));
            case "tree15":
                return new KarmiObject(name, 0, () -> Node.fullTree(4, 1));
            default:
                break;
        }
        int colon = name.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("no object '" + name + "'; there are " + NAMES);
        }
        String type = name.substring(0, colon);
        int count;
        try {
            count = Integer.parseInt(name.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + name + "': the length after ':' is not a number");
        }
        if (count < 0 || count > MAX_ELEMENTS) {
            throw new IllegalArgumentException("'" + name + "': the length must be 0.." + MAX_ELEMENTS);
        }
        return switch (type) {
            case "float" -> new KarmiObject(name, count * Float.BYTES, () -> Messages.floats(count));
            case "byte" -> new KarmiObject(name, count, () -> Messages.bytes(count));
            case "int" -> new KarmiObject(name, count * Integer.BYTES, () -> Messages.ints(count));
            default -> throw new IllegalArgumentException("'" + name + "': arrays are float:N, byte:N or int:N");
        };
    }
}
