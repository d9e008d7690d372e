package io.fastrmi.optrmi.lean;

/**
 * Object → handle by identity, for one message: open addressing over two arrays, so a lookup or
 * an insert allocates nothing, and clearing touches only what was used. A table grown beyond
 * {@link #KEPT} slots stays grown while the connection's messages keep needing it: a JMX server
 * writes an {@code MBeanInfo} of thousands of objects in every other reply, and growing the table
 * from {@link #INITIAL} each time (a rehash per doubling) cost its writer as much as writing.
 */
final class IdentityHandles {

    private static final int INITIAL = 64;
    /** Up to this many slots a table is always kept. */
    private static final int KEPT = 4096;
    /** A larger one goes after this many messages in a row that used under an eighth of it. */
    private static final int SMALL_MESSAGES_TO_SHRINK = 16;

    private Object[] keys = new Object[INITIAL];
    private int[] values = new int[INITIAL];
    /** The slots in use, in order of insertion: clearing a large table after a small message visits only these. */
    private int[] used = new int[INITIAL / 2];
    private int size;
    private int smallMessages;
    private long rehashes;

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
        if (keys.length > KEPT) {
            smallMessages = 8 * size < keys.length ? smallMessages + 1 : 0;
            if (smallMessages >= SMALL_MESSAGES_TO_SHRINK) {
                keys = new Object[INITIAL];
                values = new int[INITIAL];
                used = new int[INITIAL / 2];
                size = 0;
                smallMessages = 0;
                return;
            }
        }
        Object[] k = keys;
        int[] slots = used;
        for (int i = 0; i < size; i++) {
            k[slots[i]] = null;
        }
        size = 0;
    }

    /** The table's slots now (for the tests). */
    int capacity() {
        return keys.length;
    }

    /** How many times the table grew (for the tests). */
    long rehashes() {
        return rehashes;
    }

    private void rehash(int capacity) {
        Object[] oldKeys = keys;
        int[] oldValues = values;
        int[] oldUsed = used;
        int oldSize = size;
        keys = new Object[capacity];
        values = new int[capacity];
        used = new int[capacity / 2];
        size = 0;
        rehashes++;
        for (int i = 0; i < oldSize; i++) {
            int slot = oldUsed[i];
            put(oldKeys[slot], oldValues[slot]);
        }
    }

    private static int hash(Object obj) {
        int h = System.identityHashCode(obj);
        return h ^ (h >>> 16);
    }
}
