package io.fastrmi.optrmi.lean;

import java.io.IOException;

/**
 * A class's default data into an object: its primitive fields, then its object fields, each value's
 * type checked against its field before any is set. Set straight from the buffer where
 * {@link DirectFields} can, else through the JDK's own field reflector.
 */
final class FieldReader {

    /** One value off the stream (a field's, one level deeper): the reader's. */
    interface Values {
        Object read(boolean unshared) throws IOException, ClassNotFoundException;
    }

    private final InBuffer in;
    private final JdkFilterModel jdk;
    private final Values values;
    private final ObjectScratch scratch = new ObjectScratch();
    private byte[] primScratch = new byte[64];
    /** Fields are set straight from the buffer where {@link DirectFields} can (false: tests of the other way). */
    boolean direct = true;

    FieldReader(InBuffer in, JdkFilterModel jdk, Values values) {
        this.in = in;
        this.jdk = jdk;
        this.values = values;
    }

    /** The fields of {@code slot} into {@code obj}; {@code level} is how deep its object is (a scratch array each). */
    void read(Object obj, LeanClass.Slot slot, int level) throws IOException, ClassNotFoundException {
        jdk.rawData(slot.primDataSize);
        long[] offsets = direct ? slot.offsets : null;
        int primSize = slot.primDataSize;
        if (offsets != null) {
            char[] codes = slot.primCodes;
            for (int i = 0; i < codes.length; i++) {
                DirectFields.putPrim(obj, codes[i], offsets[i], in.readPrimValue(codes[i]));
            }
        } else if (primSize > 0) {
            if (primScratch.length < primSize) {
                primScratch = new byte[Math.max(primSize, 2 * primScratch.length)];
            }
            in.readPrimFields(slot, primScratch);
            JdkSerialClasses.setPrimValues(slot.desc, obj, primScratch);
        }
        int count = slot.objectFields;
        if (count == 0) {
            return;
        }
        if (offsets != null && count <= LeanWriter.FEW_FIELDS) {
            readFew(obj, slot, offsets, count);
            return;
        }
        Object[] read = scratch.at(level, count);
        boolean[] unshared = slot.objectUnshared;
        try {
            for (int i = 0; i < count; i++) {
                read[i] = values.read(unshared[i]);
            }
            if (offsets != null) {
                DirectFields.putCheckedReferences(obj, slot, offsets, read);
            } else {
                JdkSerialClasses.setObjValues(slot.desc, obj, read);
            }
        } finally {
            java.util.Arrays.fill(read, 0, count, null);
        }
    }

    /**
     * Up to {@link LeanWriter#FEW_FIELDS} object fields, read into locals rather than the scratch (a
     * store into a long-lived array costs a GC write barrier per value); set as the others are.
     */
    private void readFew(Object obj, LeanClass.Slot slot, long[] offsets, int count) throws IOException, ClassNotFoundException {
        boolean[] unshared = slot.objectUnshared;
        Object v0 = values.read(unshared[0]);
        Object v1 = count > 1 ? values.read(unshared[1]) : null;
        Object v2 = count > 2 ? values.read(unshared[2]) : null;
        Object v3 = count > 3 ? values.read(unshared[3]) : null;
        DirectFields.checkReference(slot, 0, v0); // the values past count are null, and pass
        DirectFields.checkReference(slot, 1, v1);
        DirectFields.checkReference(slot, 2, v2);
        DirectFields.checkReference(slot, 3, v3);
        int first = slot.primCodes.length;
        DirectFields.putReference(obj, offsets[first], v0);
        if (count > 1) {
            DirectFields.putReference(obj, offsets[first + 1], v1);
        }
        if (count > 2) {
            DirectFields.putReference(obj, offsets[first + 2], v2);
        }
        if (count > 3) {
            DirectFields.putReference(obj, offsets[first + 3], v3);
        }
    }
}
