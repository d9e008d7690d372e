package io.fastrmi.optrmi.lean;

/**
 * Arrays for one object's field values while they are written or read, one per nesting depth,
 * kept from call to call so that a call allocates none. The user clears what it used.
 */
final class ObjectScratch {

    private Object[][] byDepth = new Object[8][];

    /** An array of at least {@code count} entries for {@code depth}. */
    Object[] at(int depth, int count) {
        if (depth >= byDepth.length) {
            byDepth = java.util.Arrays.copyOf(byDepth, 2 * depth + 2);
        }
        Object[] values = byDepth[depth];
        if (values == null || values.length < count) {
            values = byDepth[depth] = new Object[Math.max(count, 8)];
        }
        return values;
    }
}
