package io.fastrmi.optrmi.lean;

/**
 * Object → handle by identity, for one message: open addressing over two arrays, so a lookup or
 * an insert allocates nothing, and clearing touches only what was used.
 */
final class IdentityHandles {

    private static final int INITIAL = 64;
    private static final int KEPT = 4096;

    private Object[] keys = new Object[INITIAL];
    private int[] values = new int[INITIAL];
    /** The slots in use, in order of insertion: clearing a large table after a small message visits only these. */
    private int[] used = new int[INITIAL / 2];
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
            used[size++] = i;
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
            used = new int[INITIAL / 2];
        } else {
            Object[] k = keys;
            int[] slots = used;
            for (int i = 0; i < size; i++) {
                k[slots[i]] = null;
            }
        }
        size = 0;
    }

    private void rehash(int capacity) {
        Object[] oldKeys = keys;
        int[] oldValues = values;
        keys = new Object[capacity];
        values = new int[capacity];
        used = new int[capacity / 2];
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
