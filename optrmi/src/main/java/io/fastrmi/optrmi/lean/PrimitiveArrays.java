package io.fastrmi.optrmi.lean;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Primitive array elements to and from bytes in bulk, in native order (no per-element swapping). */
final class PrimitiveArrays {

    private PrimitiveArrays() {
    }

    static int elementSize(Class<?> component) {
        if (component == int.class || component == float.class) {
            return 4;
        }
        if (component == long.class || component == double.class) {
            return 8;
        }
        if (component == short.class || component == char.class) {
            return 2;
        }
        return 1;
    }

    /** A new array of a primitive component: allocated as {@code new T[n]} is (reflection's is a call into the VM). */
    static Object newArray(Class<?> component, int length) {
        if (component == int.class) {
            return new int[length];
        } else if (component == long.class) {
            return new long[length];
        } else if (component == double.class) {
            return new double[length];
        } else if (component == float.class) {
            return new float[length];
        } else if (component == byte.class) {
            return new byte[length];
        } else if (component == short.class) {
            return new short[length];
        } else if (component == char.class) {
            return new char[length];
        } else if (component == boolean.class) {
            return new boolean[length];
        }
        throw new IllegalArgumentException(component.getName());
    }

    static void copyOut(Object array, Class<?> component, int from, int count, byte[] to, int at) {
        ByteBuffer bytes = ByteBuffer.wrap(to, at, count * elementSize(component)).order(ByteOrder.nativeOrder());
        if (component == int.class) {
            bytes.asIntBuffer().put((int[]) array, from, count);
        } else if (component == long.class) {
            bytes.asLongBuffer().put((long[]) array, from, count);
        } else if (component == double.class) {
            bytes.asDoubleBuffer().put((double[]) array, from, count);
        } else if (component == float.class) {
            bytes.asFloatBuffer().put((float[]) array, from, count);
        } else if (component == short.class) {
            bytes.asShortBuffer().put((short[]) array, from, count);
        } else if (component == char.class) {
            bytes.asCharBuffer().put((char[]) array, from, count);
        } else {
            throw new IllegalArgumentException(component.getName());
        }
    }

    static void copyIn(byte[] from, int at, Object array, Class<?> component, int to, int count) {
        ByteBuffer bytes = ByteBuffer.wrap(from, at, count * elementSize(component)).order(ByteOrder.nativeOrder());
        if (component == int.class) {
            bytes.asIntBuffer().get((int[]) array, to, count);
        } else if (component == long.class) {
            bytes.asLongBuffer().get((long[]) array, to, count);
        } else if (component == double.class) {
            bytes.asDoubleBuffer().get((double[]) array, to, count);
        } else if (component == float.class) {
            bytes.asFloatBuffer().get((float[]) array, to, count);
        } else if (component == short.class) {
            bytes.asShortBuffer().get((short[]) array, to, count);
        } else if (component == char.class) {
            bytes.asCharBuffer().get((char[]) array, to, count);
        } else {
            throw new IllegalArgumentException(component.getName());
        }
    }
}
