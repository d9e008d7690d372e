package io.fastrmi.optrmi.lean;

import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
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

    private static final MethodHandle OFFSET;
    private static final MethodHandle GET_BOOLEAN;
    private static final MethodHandle GET_BYTE;
    private static final MethodHandle GET_CHAR;
    private static final MethodHandle GET_SHORT;
    private static final MethodHandle GET_INT;
    private static final MethodHandle GET_LONG;
    private static final MethodHandle GET_FLOAT;
    private static final MethodHandle GET_DOUBLE;
    private static final MethodHandle GET_REFERENCE;
    private static final MethodHandle PUT_BOOLEAN;
    private static final MethodHandle PUT_BYTE;
    private static final MethodHandle PUT_CHAR;
    private static final MethodHandle PUT_SHORT;
    private static final MethodHandle PUT_INT;
    private static final MethodHandle PUT_LONG;
    private static final MethodHandle PUT_FLOAT;
    private static final MethodHandle PUT_DOUBLE;
    private static final MethodHandle PUT_REFERENCE;
    /** Where a String keeps its coder (0: one byte per char), or -1 where that cannot be read. */
    private static final long STRING_CODER;
    /** Why fields are not reached directly in this JVM, or null when they are. */
    private static final String UNAVAILABLE;

    static {
        MethodHandle[] h = new MethodHandle[19];
        String unavailable = null;
        long stringCoder = -1;
        try {
            Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            Object unsafe = lookup.findStatic(unsafeClass, "getUnsafe", MethodType.methodType(unsafeClass)).invoke();
            Class<?>[] types = {boolean.class, byte.class, char.class, short.class, int.class, long.class, float.class,
                double.class, Object.class};
            String[] names = {"Boolean", "Byte", "Char", "Short", "Int", "Long", "Float", "Double", "Reference"};
            // By class and name: the Field form refuses records, whose fields are read here too.
            h[0] = lookup.findVirtual(unsafeClass, "objectFieldOffset",
                    MethodType.methodType(long.class, Class.class, String.class)).bindTo(unsafe);
            for (int i = 0; i < types.length; i++) {
                h[1 + i] = lookup.findVirtual(unsafeClass, "get" + names[i],
                        MethodType.methodType(types[i], Object.class, long.class)).bindTo(unsafe);
                h[10 + i] = lookup.findVirtual(unsafeClass, "put" + names[i],
                        MethodType.methodType(void.class, Object.class, long.class, types[i])).bindTo(unsafe);
            }
            stringCoder = stringCoderOffset(h[0], h[2]);
        } catch (Throwable e) {
            unavailable = "jdk.internal.misc.Unsafe is not exported to FastRMI (" + e + ")";
        }
        STRING_CODER = stringCoder;
        OFFSET = h[0];
        GET_BOOLEAN = h[1];
        GET_BYTE = h[2];
        GET_CHAR = h[3];
        GET_SHORT = h[4];
        GET_INT = h[5];
        GET_LONG = h[6];
        GET_FLOAT = h[7];
        GET_DOUBLE = h[8];
        GET_REFERENCE = h[9];
        PUT_BOOLEAN = h[10];
        PUT_BYTE = h[11];
        PUT_CHAR = h[12];
        PUT_SHORT = h[13];
        PUT_INT = h[14];
        PUT_LONG = h[15];
        PUT_FLOAT = h[16];
        PUT_DOUBLE = h[17];
        PUT_REFERENCE = h[18];
        UNAVAILABLE = unavailable;
    }

    private DirectFields() {
    }

    /** String's byte field {@code coder}, as java.lang.String has had it since JDK 9; -1 if it is not there. */
    private static long stringCoderOffset(MethodHandle offset, MethodHandle getByte) {
        try {
            long at = (long) offset.invoke(String.class, "coder");
            // Checked, not assumed: a one-byte string reads 0 there, a two-byte one 1.
            boolean oneByte = (byte) getByte.invoke((Object) "a", at) == 0;
            boolean twoBytes = (byte) getByte.invoke((Object) "\u0100", at) == 1;
            return oneByte && twoBytes ? at : -1;
        } catch (Throwable e) {
            return -1;
        }
    }

    /**
     * True when {@code s} is known to hold one byte per char (its coder says Latin-1), so its chars
     * can be copied as bytes without looking at each; false when that is not known.
     */
    static boolean isLatin1(String s) {
        if (STRING_CODER < 0) {
            return false;
        }
        try {
            return (byte) GET_BYTE.invokeExact((Object) s, STRING_CODER) == 0;
        } catch (Throwable t) {
            throw unexpected(t);
        }
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
                offsets[i] = (long) OFFSET.invokeExact(type, field.getName());
            }
        } catch (Throwable e) {
            return null;
        }
        return offsets;
    }

    /**
     * A primitive field's value as the lean format encodes it ({@link OutBuffer#writePrimValue}):
     * the value itself for integral types and char, the raw bits for float and double, 0 or 1 for boolean.
     */
    static long getPrim(Object obj, char code, long offset) {
        try {
            return switch (code) {
                case 'I' -> (int) GET_INT.invokeExact(obj, offset);
                case 'J' -> (long) GET_LONG.invokeExact(obj, offset);
                case 'D' -> Double.doubleToRawLongBits((double) GET_DOUBLE.invokeExact(obj, offset));
                case 'F' -> Float.floatToRawIntBits((float) GET_FLOAT.invokeExact(obj, offset));
                case 'S' -> (short) GET_SHORT.invokeExact(obj, offset);
                case 'C' -> (char) GET_CHAR.invokeExact(obj, offset);
                case 'Z' -> (boolean) GET_BOOLEAN.invokeExact(obj, offset) ? 1 : 0;
                default -> (byte) GET_BYTE.invokeExact(obj, offset);
            };
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** Sets a primitive field from a value as {@link InBuffer#readPrimValue} gives it. */
    static void putPrim(Object obj, char code, long offset, long value) {
        try {
            switch (code) {
                case 'I' -> PUT_INT.invokeExact(obj, offset, (int) value);
                case 'J' -> PUT_LONG.invokeExact(obj, offset, value);
                case 'D' -> PUT_DOUBLE.invokeExact(obj, offset, Double.longBitsToDouble(value));
                case 'F' -> PUT_FLOAT.invokeExact(obj, offset, Float.intBitsToFloat((int) value));
                case 'S' -> PUT_SHORT.invokeExact(obj, offset, (short) value);
                case 'C' -> PUT_CHAR.invokeExact(obj, offset, (char) value);
                case 'Z' -> PUT_BOOLEAN.invokeExact(obj, offset, value != 0);
                default -> PUT_BYTE.invokeExact(obj, offset, (byte) value);
            }
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static Object getReference(Object obj, long offset) {
        try {
            return (Object) GET_REFERENCE.invokeExact(obj, offset);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** Sets an object field whose declared type the caller checked the value against. */
    static void putReference(Object obj, long offset, Object value) {
        try {
            PUT_REFERENCE.invokeExact(obj, offset, value);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    private static IllegalStateException unexpected(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("FastRMI: direct field access failed: " + t, t);
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
