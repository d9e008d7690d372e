package io.fastrmi.netpipe.bench.objects;

import java.io.Serializable;
import java.util.Objects;

/** KaRMI's "4 int + 2 null" object: four ints and two references that are null. */
public final class Int4Null2 implements Serializable {

    private static final long serialVersionUID = 1L;

    int a, b, c, d;
    Object first;
    Object second;

    public static Int4Null2 numbered(int seed) {
        return of(seed, seed + 1, seed + 2, seed + 3);
    }

    /** The four ints, for serializers of other frameworks (Dirmi); the references are always null. */
    public int[] ints() {
        return new int[] {a, b, c, d};
    }

    public static Int4Null2 of(int a, int b, int c, int d) {
        Int4Null2 o = new Int4Null2();
        o.a = a;
        o.b = b;
        o.c = c;
        o.d = d;
        return o;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Int4Null2 o && a == o.a && b == o.b && c == o.c && d == o.d
                && Objects.equals(first, o.first) && Objects.equals(second, o.second);
    }

    @Override
    public int hashCode() {
        return Objects.hash(a, b, c, d);
    }

    @Override
    public String toString() {
        return "Int4Null2[" + a + "," + b + "," + c + "," + d + "]";
    }
}
