package io.fastrmi.netpipe.bench;

import java.io.Serializable;
import java.util.Objects;

/** KaRMI's "4 int + 2 null" object: four ints and two references that are null. */
public final class Int4Null2 implements Serializable {

    private static final long serialVersionUID = 1L;

    int a, b, c, d;
    Object first;
    Object second;

    public static Int4Null2 numbered(int seed) {
        Int4Null2 o = new Int4Null2();
        o.a = seed;
        o.b = seed + 1;
        o.c = seed + 2;
        o.d = seed + 3;
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
