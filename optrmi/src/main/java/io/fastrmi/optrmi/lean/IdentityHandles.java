package io.fastrmi.optrmi.lean;

import java.util.Arrays;

/**
 * Object → handle by identity, for one message: open addressing over two arrays, so a lookup or
 * an insert allocates nothing, and clearing touches only what was used.
 */
final class IdentityHandles {

    private static final int INITIAL = 64;
    private static final int KEPT = 4096;

    private Object[] keys = new Object[INITIAL];
    private int[] values = new int[INITIAL];
    private int size;

    /** The handle of obj, or -1. */
    int get(Object obj) {
        Object[] k = keys;
        int mask = k.length - 1;
        for (int i = hash(obj) & mask; ; i = (i + 1) & mask) {
            Object key = k[i];
            if (key == obj) {
                return values[i];
            }
            if (key == null) {
                return -1;
            }
        }
    }

    void put(Object obj, int handle) {
        if (2 * (size + 1) > keys.length) {
            rehash(keys.length * 2);
        }
        Object[] k = keys;
        int mask = k.length - 1;
        int i = hash(obj) & mask;
        while (k[i] != null && k[i] != obj) {
            i = (i + 1) & mask;
        }
        if (k[i] == null) {
            size++;
        }
        k[i] = obj;
        values[i] = handle;
    }

    void clear() {
        if (size == 0) {
            return;
        }
        if (keys.length > KEPT) {
            keys = new Object[INITIAL];
            values = new int[INITIAL];
        } else {
            Arrays.fill(keys, null);
        }
        size = 0;
    }

    private void rehash(int capacity) {
        Object[] oldKeys = keys;
        int[] oldValues = values;
        keys = new Object[capacity];
        values = new int[capacity];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != null) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    private static int hash(Object obj) {
        int h = System.identityHashCode(obj);
        return h ^ (h >>> 16);
    }
}
