package io.fastrmi.optrmi.lean;

import java.io.ObjectInputStream;
import java.io.ObjectStreamField;

/** ObjectInputStream.GetField over one class's fields as they were read. */
final class LeanGetField extends ObjectInputStream.GetField {
    final LeanClass.Slot slot;
    final byte[] prims;
    final Object[] objects;

    LeanGetField(LeanClass.Slot slot) {
        this.slot = slot;
        this.prims = new byte[slot.primDataSize];
        this.objects = new Object[slot.objectFields];
    }

    @Override
    public java.io.ObjectStreamClass getObjectStreamClass() {
        return slot.desc;
    }

    @Override
    public boolean defaulted(String name) {
        if (slot.field(name, null) == null) {
            throw new IllegalArgumentException("no such field " + name);
        }
        return false;
    }

    private int offset(String name, Class<?> type) {
        ObjectStreamField field = slot.field(name, type);
        if (field == null) {
            throw new IllegalArgumentException("no such field " + name + " with type " + type);
        }
        return field.getOffset();
    }

    private long bits(String name, Class<?> type, int size) {
        int at = offset(name, type);
        long v = 0;
        for (int i = 0; i < size; i++) {
            v = v << 8 | (prims[at + i] & 0xFF);
        }
        return v;
    }

    @Override
    public boolean get(String name, boolean val) {
        return prims[offset(name, boolean.class)] != 0;
    }

    @Override
    public byte get(String name, byte val) {
        return prims[offset(name, byte.class)];
    }

    @Override
    public char get(String name, char val) {
        return (char) bits(name, char.class, 2);
    }

    @Override
    public short get(String name, short val) {
        return (short) bits(name, short.class, 2);
    }

    @Override
    public int get(String name, int val) {
        return (int) bits(name, int.class, 4);
    }

    @Override
    public long get(String name, long val) {
        return bits(name, long.class, 8);
    }

    @Override
    public float get(String name, float val) {
        return Float.intBitsToFloat((int) bits(name, float.class, 4));
    }

    @Override
    public double get(String name, double val) {
        return Double.longBitsToDouble(bits(name, double.class, 8));
    }

    @Override
    public Object get(String name, Object val) {
        return objects[offset(name, Object.class)];
    }
}
