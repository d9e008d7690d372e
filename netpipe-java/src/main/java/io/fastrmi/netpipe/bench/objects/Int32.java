package io.fastrmi.netpipe.bench.objects;

import java.io.Serializable;

/** KaRMI's "32 int" object: 32 int fields. */
public final class Int32 implements Serializable {

    private static final long serialVersionUID = 1L;

    int i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15;
    int i16, i17, i18, i19, i20, i21, i22, i23, i24, i25, i26, i27, i28, i29, i30, i31;

    /** Each field its own value, from {@code seed} up. */
    public static Int32 numbered(int seed) {
        Int32 o = new Int32();
        o.i0 = seed; o.i1 = seed + 1; o.i2 = seed + 2; o.i3 = seed + 3; o.i4 = seed + 4; o.i5 = seed + 5;
        o.i6 = seed + 6; o.i7 = seed + 7; o.i8 = seed + 8; o.i9 = seed + 9; o.i10 = seed + 10; o.i11 = seed + 11;
        o.i12 = seed + 12; o.i13 = seed + 13; o.i14 = seed + 14; o.i15 = seed + 15; o.i16 = seed + 16;
        o.i17 = seed + 17; o.i18 = seed + 18; o.i19 = seed + 19; o.i20 = seed + 20; o.i21 = seed + 21;
        o.i22 = seed + 22; o.i23 = seed + 23; o.i24 = seed + 24; o.i25 = seed + 25; o.i26 = seed + 26;
        o.i27 = seed + 27; o.i28 = seed + 28; o.i29 = seed + 29; o.i30 = seed + 30; o.i31 = seed + 31;
        return o;
    }

    /** The 32 fields in order, for serializers of other frameworks (Dirmi). */
    public int[] toArray() {
        return new int[] {i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15,
            i16, i17, i18, i19, i20, i21, i22, i23, i24, i25, i26, i27, i28, i29, i30, i31};
    }

    /** The object {@link #toArray()} made {@code fields} from. */
    public static Int32 fromArray(int[] f) {
        Int32 o = new Int32();
        o.i0 = f[0]; o.i1 = f[1]; o.i2 = f[2]; o.i3 = f[3]; o.i4 = f[4]; o.i5 = f[5]; o.i6 = f[6]; o.i7 = f[7];
        o.i8 = f[8]; o.i9 = f[9]; o.i10 = f[10]; o.i11 = f[11]; o.i12 = f[12]; o.i13 = f[13]; o.i14 = f[14];
        o.i15 = f[15]; o.i16 = f[16]; o.i17 = f[17]; o.i18 = f[18]; o.i19 = f[19]; o.i20 = f[20]; o.i21 = f[21];
        o.i22 = f[22]; o.i23 = f[23]; o.i24 = f[24]; o.i25 = f[25]; o.i26 = f[26]; o.i27 = f[27]; o.i28 = f[28];
        o.i29 = f[29]; o.i30 = f[30]; o.i31 = f[31];
        return o;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Int32 o && i0 == o.i0 && i1 == o.i1 && i2 == o.i2 && i3 == o.i3 && i4 == o.i4
                && i5 == o.i5 && i6 == o.i6 && i7 == o.i7 && i8 == o.i8 && i9 == o.i9 && i10 == o.i10 && i11 == o.i11
                && i12 == o.i12 && i13 == o.i13 && i14 == o.i14 && i15 == o.i15 && i16 == o.i16 && i17 == o.i17
                && i18 == o.i18 && i19 == o.i19 && i20 == o.i20 && i21 == o.i21 && i22 == o.i22 && i23 == o.i23
                && i24 == o.i24 && i25 == o.i25 && i26 == o.i26 && i27 == o.i27 && i28 == o.i28 && i29 == o.i29
                && i30 == o.i30 && i31 == o.i31;
    }

    @Override
    public int hashCode() {
        return i0 * 31 + i31;
    }

    @Override
    public String toString() {
        return "Int32[" + i0 + ".." + i31 + "]";
    }
}
