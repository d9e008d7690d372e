package io.fastrmi.optrmi.lean;

import jdk.internal.misc.Unsafe;

/**
 * The JDK's own {@code jdk.internal.misc.Unsafe}, called directly: the field accesses of
 * {@link DirectFields}. Compiled apart from the rest of the module, without {@code --release} (which
 * forbids exporting a package of java.base) and with {@code --add-exports} (optrmi's pom), so that
 * no method handle stands between the lean codec and a field: 19 bound handles spun about 45
 * {@code LambdaForm} classes, 25–30 ms of CPU in each JVM before its first lean call, and ran slowly
 * until the JIT had them. Only {@link DirectFields} calls it, and only once it has seen that java.base
 * exports the package to this class's module: before that, the first call here would fail to link.
 * Uses nothing newer than JDK 17's Unsafe.
 */
final class UnsafeFields {

    private static final Unsafe UNSAFE = Unsafe.getUnsafe();

    private UnsafeFields() {
    }

    /** By class and name: the {@code Field} form refuses records, whose fields are read here too. */
    static long offset(Class<?> type, String field) {
        return UNSAFE.objectFieldOffset(type, field);
    }

    static boolean getBoolean(Object obj, long offset) {
        return UNSAFE.getBoolean(obj, offset);
    }

    static byte getByte(Object obj, long offset) {
        return UNSAFE.getByte(obj, offset);
    }

    static char getChar(Object obj, long offset) {
        return UNSAFE.getChar(obj, offset);
    }

    static short getShort(Object obj, long offset) {
        return UNSAFE.getShort(obj, offset);
    }

    static int getInt(Object obj, long offset) {
        return UNSAFE.getInt(obj, offset);
    }

    static long getLong(Object obj, long offset) {
        return UNSAFE.getLong(obj, offset);
    }

    static float getFloat(Object obj, long offset) {
        return UNSAFE.getFloat(obj, offset);
    }

    static double getDouble(Object obj, long offset) {
        return UNSAFE.getDouble(obj, offset);
    }

    static Object getReference(Object obj, long offset) {
        return UNSAFE.getReference(obj, offset);
    }

    static void putBoolean(Object obj, long offset, boolean value) {
        UNSAFE.putBoolean(obj, offset, value);
    }

    static void putByte(Object obj, long offset, byte value) {
        UNSAFE.putByte(obj, offset, value);
    }

    static void putChar(Object obj, long offset, char value) {
        UNSAFE.putChar(obj, offset, value);
    }

    static void putShort(Object obj, long offset, short value) {
        UNSAFE.putShort(obj, offset, value);
    }

    static void putInt(Object obj, long offset, int value) {
        UNSAFE.putInt(obj, offset, value);
    }

    static void putLong(Object obj, long offset, long value) {
        UNSAFE.putLong(obj, offset, value);
    }

    static void putFloat(Object obj, long offset, float value) {
        UNSAFE.putFloat(obj, offset, value);
    }

    static void putDouble(Object obj, long offset, double value) {
        UNSAFE.putDouble(obj, offset, value);
    }

    static void putReference(Object obj, long offset, Object value) {
        UNSAFE.putReference(obj, offset, value);
    }
}
