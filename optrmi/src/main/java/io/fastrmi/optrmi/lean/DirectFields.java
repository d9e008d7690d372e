package io.fastrmi.optrmi.lean;

import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * Reads and sets a class's serializable fields in place, with the JDK's own
 * {@code jdk.internal.misc.Unsafe} (what {@code ObjectStreamClass}'s field reflector uses), so that
 * a field's value goes between the instance and the stream without the JDK's intermediate byte and
 * object arrays. Only where java.base exports {@code jdk.internal.misc} to FastRMI (the agent does;
 * {@code --add-exports} elsewhere), and only for classes whose every serializable field is a real
 * instance field of that type; otherwise {@link #offsets} says null and the JDK's way is taken.
 * Object values are type-checked before they are set, as the JDK checks them.
 */
final class DirectFields {

    /** Where a String keeps its coder (0: one byte per char), or -1 where that cannot be read. */
    private static final long STRING_CODER;
    /** Why fields are not reached directly in this JVM, or null when they are. */
    private static final String UNAVAILABLE;

    static {
        String unavailable = null;
        long stringCoder = -1;
        // Asked first: without the export, UnsafeFields' first call would fail to link.
        if (!Object.class.getModule().isExported("jdk.internal.misc", DirectFields.class.getModule())) {
            unavailable = "jdk.internal.misc.Unsafe is not exported to FastRMI";
        } else {
            try {
                stringCoder = stringCoderOffset();
            } catch (LinkageError e) {
                unavailable = "jdk.internal.misc.Unsafe cannot be reached by FastRMI (" + e + ")";
            }
        }
        STRING_CODER = stringCoder;
        UNAVAILABLE = unavailable;
    }

    private DirectFields() {
    }

    /** String's byte field {@code coder}, as java.lang.String has had it since JDK 9; -1 if it is not there. */
    private static long stringCoderOffset() {
        long at;
        try {
            at = UnsafeFields.offset(String.class, "coder");
        } catch (InternalError | RuntimeException e) {
            return -1; // no such field
        }
        // Checked, not assumed: a one-byte string reads 0 there, a two-byte one 1.
        boolean oneByte = UnsafeFields.getByte("a", at) == 0;
        boolean twoBytes = UnsafeFields.getByte("\u0100", at) == 1;
        return oneByte && twoBytes ? at : -1;
    }

    /**
     * True when {@code s} is known to hold one byte per char (its coder says Latin-1), so its chars
     * can be copied as bytes without looking at each; false when that is not known.
     */
    static boolean isLatin1(String s) {
        if (STRING_CODER < 0) {
            return false;
        }
        return UnsafeFields.getByte(s, STRING_CODER) == 0;
    }

    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /**
     * Each field's offset in instances of {@code desc}'s class, in the order of {@code fields}; null
     * when one of them is not a non-static field of that name and type there (a
     * {@code serialPersistentFields} entry with no field behind it, which the JDK skips) or offsets
     * cannot be had (fields not reachable here, a hidden class).
     */
    static long[] offsets(ObjectStreamClass desc, ObjectStreamField[] fields) {
        Class<?> type = desc.forClass();
        // A record's offsets serve only to read its fields: a record is made by its canonical constructor.
        if (UNAVAILABLE != null || type == null || type.isHidden()) {
            return null;
        }
        long[] offsets = new long[fields.length];
        try {
            for (int i = 0; i < fields.length; i++) {
                Field field = type.getDeclaredField(fields[i].getName());
                if (field.getType() != fields[i].getType() || Modifier.isStatic(field.getModifiers())) {
                    return null;
                }
                offsets[i] = UnsafeFields.offset(type, field.getName());
            }
        } catch (NoSuchFieldException | InternalError | RuntimeException e) {
            return null; // (Unsafe says InternalError where it finds no such field)
        }
        return offsets;
    }

    /**
     * A primitive field's value as the lean format encodes it ({@link OutBuffer#writePrimValue}):
     * the value itself for integral types and char, the raw bits for float and double, 0 or 1 for boolean.
     */
    static long getPrim(Object obj, char code, long offset) {
        return switch (code) {
            case 'I' -> UnsafeFields.getInt(obj, offset);
            case 'J' -> UnsafeFields.getLong(obj, offset);
            case 'D' -> Double.doubleToRawLongBits(UnsafeFields.getDouble(obj, offset));
            case 'F' -> Float.floatToRawIntBits(UnsafeFields.getFloat(obj, offset));
            case 'S' -> UnsafeFields.getShort(obj, offset);
            case 'C' -> UnsafeFields.getChar(obj, offset);
            case 'Z' -> UnsafeFields.getBoolean(obj, offset) ? 1 : 0;
            default -> UnsafeFields.getByte(obj, offset);
        };
    }

    /** Sets a primitive field from a value as {@link InBuffer#readPrimValue} gives it. */
    static void putPrim(Object obj, char code, long offset, long value) {
        switch (code) {
            case 'I' -> UnsafeFields.putInt(obj, offset, (int) value);
            case 'J' -> UnsafeFields.putLong(obj, offset, value);
            case 'D' -> UnsafeFields.putDouble(obj, offset, Double.longBitsToDouble(value));
            case 'F' -> UnsafeFields.putFloat(obj, offset, Float.intBitsToFloat((int) value));
            case 'S' -> UnsafeFields.putShort(obj, offset, (short) value);
            case 'C' -> UnsafeFields.putChar(obj, offset, (char) value);
            case 'Z' -> UnsafeFields.putBoolean(obj, offset, value != 0);
            default -> UnsafeFields.putByte(obj, offset, (byte) value);
        }
    }

    static Object getReference(Object obj, long offset) {
        return UnsafeFields.getReference(obj, offset);
    }

    /** Sets an object field whose declared type the caller checked the value against. */
    static void putReference(Object obj, long offset, Object value) {
        UnsafeFields.putReference(obj, offset, value);
    }

    /** Every value is checked against its field's type before any is set, as the JDK's field reflector does. */
    static void putCheckedReferences(Object obj, LeanClass.Slot slot, long[] offsets, Object[] values) {
        int count = slot.objectTypes.length;
        for (int i = 0; i < count; i++) {
            checkReference(slot, i, values[i]);
        }
        int prims = slot.primCodes.length;
        for (int i = 0; i < count; i++) {
            putReference(obj, offsets[prims + i], values[i]);
        }
    }

    /** Throws the JDK's ClassCastException when {@code value} cannot be the {@code i}th object field's. */
    static void checkReference(LeanClass.Slot slot, int i, Object value) {
        if (value != null && !slot.objectTypes[i].isInstance(value)) {
            ObjectStreamField field = slot.fields[slot.primCodes.length + i];
            throw new ClassCastException("cannot assign instance of " + value.getClass().getName() + " to field "
                    + slot.desc.getName() + "." + field.getName() + " of type " + slot.objectTypes[i].getName());
        }
    }
}
