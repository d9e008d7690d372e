package io.fastrmi.optrmi.lean;

import java.io.Externalizable;
import java.io.IOException;
import java.io.NotActiveException;
import java.io.NotSerializableException;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamField;
import java.io.OutputStream;

/**
 * The sending end of one direction of a connection in the lean format ({@link LeanFormat}). It
 * lives as long as the connection: its class table and buffers are kept from message to message,
 * its handles are cleared after each. Classes serialize by the JDK's rules (the same fields, the
 * same private hooks, called with the stream the application sees, {@code facade}); only the
 * bytes differ. A failure in the middle of a message leaves the peer's tables unknowable, so the
 * writer is then broken for good and its connection must close.
 */
public final class LeanWriter {

    /** What RMI's marshal stream does to each object before it is written (exported object → stub). */
    public interface Replacer {
        Object replace(Object obj) throws IOException;
    }

    /**
     * The codebase annotation a class's descriptor carries (RMI's {@code RMIClassLoader.getClassAnnotation}),
     * or null. Sent once per class and connection, never for {@code java.*} classes.
     */
    public interface Annotator {
        String annotation(Class<?> type);
    }

    /** Up to this many object fields of a class are held in locals while written (and read, by LeanReader). */
    static final int FEW_FIELDS = 4;

    private final OutBuffer out;
    private final Replacer replacer;
    private final Annotator annotator;
    /** The class table: by {@link LeanClass#index}, the id sent plus one (0: not sent yet). */
    private int[] classIds = new int[64];
    private int classCount;
    /** {@link #leanOf}'s cache, direct-mapped by the class's identity hash. */
    private final Class<?>[] recentTypes = new Class<?>[16];
    private final LeanClass[] recentLeans = new LeanClass[16];
    private final IdentityHandles handles = new IdentityHandles();
    private int nextHandle;
    private ObjectOutputStream facade;
    private byte[] primScratch = new byte[64];
    /** Fields go straight between instance and buffer where {@link DirectFields} can (false: tests of the other way). */
    boolean directFields = true;
    private final ObjectScratch scratch = new ObjectScratch();
    private int depth;
    /** The object and class whose writeObject runs (for defaultWriteObject and putFields), or null. */
    private Object currentObject;
    private LeanClass.Slot currentSlot;
    private LeanPutField currentPutField;
    /** Inside a writeObject's or writeExternal's segment: primitive data goes in blocks. */
    private boolean customData;
    /** The open block's header (see {@link OutBuffer#openBlock}), or -1. */
    private int openBlock = -1;
    private String broken;

    /** A writer with no replacement and no annotations (a classpath both ends share). */
    public LeanWriter(OutputStream sink, Replacer replacer) {
        this(sink, replacer, null);
    }

    public LeanWriter(OutputStream sink, Replacer replacer, Annotator annotator) {
        this(sink, replacer, annotator, null);
    }

    /** {@code bulk}: where large primitive arrays go straight from the array, or null (they are copied into the sink). */
    public LeanWriter(OutputStream sink, Replacer replacer, Annotator annotator, BulkOutput bulk) {
        this.out = new OutBuffer(sink, bulk);
        this.replacer = replacer;
        this.annotator = annotator;
    }

    /**
     * Starts a message; {@code facade} is the stream that classes' writeObject methods are given.
     * A message that was begun and never ended (its writer failed) leaves the peer's tables
     * unknowable: the writer is then broken.
     */
    public void beginMessage(ObjectOutputStream facade) throws IOException {
        checkUsable();
        if (this.facade != null) {
            IOException e = new IOException("a lean message began before the one before it ended");
            fail(e);
            throw e;
        }
        this.facade = facade;
    }

    /** Ends a message: its last frame goes out (the sink flushed) and its handles are forgotten. */
    public void endMessage() throws IOException {
        endMessage(true);
    }

    /** As {@link #endMessage()}; {@code flushSink} false when the caller flushes the sink itself (RMI does). */
    public void endMessage(boolean flushSink) throws IOException {
        checkUsable();
        try {
            out.endMessage(flushSink);
        } catch (IOException | RuntimeException e) {
            fail(e);
            throw e;
        } finally {
            handles.clear();
            nextHandle = 0;
            facade = null;
        }
    }

    public void flush() throws IOException {
        checkUsable();
        closeBlock(); // as the JDK's flush ends its block
        try {
            out.flush();
        } catch (IOException | RuntimeException e) {
            fail(e);
            throw e;
        }
    }

    public boolean isBroken() {
        return broken != null;
    }

    public void writeObject(Object obj, boolean unshared) throws IOException {
        checkUsable();
        closeBlock();
        try {
            writeValue(obj, unshared);
        } catch (IOException | RuntimeException | Error e) {
            fail(e);
            throw e;
        }
    }

    public void writeByte(int v) throws IOException {
        checkUsable();
        blockData();
        out.writeByte(v);
    }

    public void writeShort(int v) throws IOException {
        checkUsable();
        blockData();
        out.writeShort(v);
    }

    public void writeInt(int v) throws IOException {
        checkUsable();
        blockData();
        out.writeInt(v);
    }

    public void writeLong(long v) throws IOException {
        checkUsable();
        blockData();
        out.writeLong(v);
    }

    public void write(byte[] b, int off, int len) throws IOException {
        checkUsable();
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len > 0) {
            blockData();
            out.write(b, off, len);
        }
    }

    public void writeBoolean(boolean v) throws IOException {
        writeByte(v ? 1 : 0);
    }

    public void writeChar(int v) throws IOException {
        writeShort(v);
    }

    public void writeFloat(float v) throws IOException {
        writeInt(Float.floatToIntBits(v));
    }

    public void writeDouble(double v) throws IOException {
        writeLong(Double.doubleToLongBits(v));
    }

    /** DataOutput.writeBytes: each char's low byte. */
    public void writeBytes(String s) throws IOException {
        for (int i = 0; i < s.length(); i++) {
            writeByte(s.charAt(i));
        }
    }

    public void writeChars(String s) throws IOException {
        for (int i = 0; i < s.length(); i++) {
            writeShort(s.charAt(i));
        }
    }

    /** writeUTF: the string in the lean form (both ends are FastRMI's, so no 65535-byte limit). */
    public void writeUTF(String s) throws IOException {
        checkUsable();
        blockData();
        out.writeString(s);
    }

    /** {@code defaultWriteObject()}: the fields of the class whose writeObject runs. */
    public void defaultWriteObject() throws IOException {
        if (currentSlot == null) {
            throw new NotActiveException("not in call to writeObject");
        }
        defaultFieldsFollow();
        writeFields(currentObject, currentSlot);
    }

    public ObjectOutputStream.PutField putFields() throws IOException {
        if (currentSlot == null) {
            throw new NotActiveException("not in call to writeObject");
        }
        if (currentPutField == null) {
            currentPutField = new LeanPutField(currentSlot);
        }
        return currentPutField;
    }

    public void writeFields() throws IOException {
        if (currentPutField == null) {
            throw new NotActiveException("no current PutField object");
        }
        LeanPutField fields = currentPutField;
        defaultFieldsFollow();
        out.writePrimFields(fields.slot, fields.prims);
        ObjectStreamField[] declared = fields.slot.fields;
        int first = declared.length - fields.slot.objectFields;
        for (int i = 0; i < fields.objects.length; i++) {
            writeValue(fields.objects[i], declared[first + i].isUnshared());
        }
    }

    /** Primitive data of a writeObject or writeExternal goes in a block, opened at its first byte. */
    private void blockData() throws IOException {
        if (customData && openBlock < 0) {
            openBlock = out.openBlock();
        }
    }

    /** An object, defaultWriteObject, writeFields or flush ends the block, as the JDK's block-data mode ends there. */
    private void closeBlock() {
        if (openBlock >= 0) {
            out.closeBlock(openBlock);
            openBlock = -1;
        }
    }

    private void defaultFieldsFollow() throws IOException {
        closeBlock();
        out.writeByte(LeanFormat.DEFAULT_FIELDS);
    }

    private void writeValue(Object obj, boolean unshared) throws IOException {
        if (obj == null) {
            out.writeByte(LeanFormat.NULL);
            return;
        }
        int handle;
        if (!unshared && (handle = handles.get(obj)) >= 0) {
            writeRef(handle);
            return;
        }
        Object orig = obj;
        Class<?> type = obj.getClass();
        LeanClass lean = leanOf(type);
        // writeReplace, as the JDK applies it: again while it changes the class.
        while (lean.writeReplace) {
            Object rep = JdkSerialClasses.invokeWriteReplace(lean.desc, obj);
            if (rep == null) {
                obj = null;
                break;
            }
            obj = rep;
            if (rep.getClass() == type) {
                break;
            }
            type = rep.getClass();
            lean = leanOf(type);
        }
        if (replacer != null && obj != null) {
            Object rep = replacer.replace(obj);
            if (rep != obj) {
                obj = rep;
                if (rep != null) {
                    type = rep.getClass();
                    lean = leanOf(type);
                }
            }
        }
        if (obj != orig) {
            if (obj == null) {
                out.writeByte(LeanFormat.NULL);
                return;
            }
            if (!unshared && (handle = handles.get(obj)) >= 0) {
                handles.put(orig, handle);
                writeRef(handle);
                return;
            }
        }
        if (obj instanceof String s) {
            out.writeByte(LeanFormat.STRING);
            assign(obj, orig, unshared);
            out.writeString(s);
            return;
        }
        if (obj instanceof Class<?> c) {
            out.writeByte(LeanFormat.CLASS);
            writeClass(LeanClass.of(c));
            assign(obj, orig, unshared);
            return;
        }
        if (obj instanceof Enum<?> e) {
            lean = leanOf(e.getDeclaringClass());
        }
        switch (lean.kind) {
            case LeanFormat.KIND_ARRAY -> writeArray(obj, orig, lean, unshared);
            case LeanFormat.KIND_ENUM -> {
                out.writeByte(LeanFormat.OBJECT);
                writeClass(lean);
                assign(obj, orig, unshared);
                out.writeVarint(((Enum<?>) obj).ordinal());
            }
            case LeanFormat.KIND_SERIAL, LeanFormat.KIND_PROXY, LeanFormat.KIND_RECORD -> {
                lean.checkSerialize();
                out.writeByte(LeanFormat.OBJECT);
                writeClass(lean);
                assign(obj, orig, unshared);
                writeSerialData(obj, lean);
            }
            case LeanFormat.KIND_EXTERNAL -> {
                lean.checkSerialize();
                out.writeByte(LeanFormat.OBJECT);
                writeClass(lean);
                assign(obj, orig, unshared);
                writeExternalData((Externalizable) obj);
            }
            default -> throw new NotSerializableException(type.getName());
        }
    }

    /**
     * The class of a value, from a small cache of this connection's recent classes before the
     * global table (a graph's objects are mostly of a few classes; the table's lookup was an
     * eighth of a tree's write). It keeps those classes reachable while the connection lives.
     */
    private LeanClass leanOf(Class<?> type) {
        int slot = type.hashCode() & (recentTypes.length - 1);
        if (recentTypes[slot] == type) {
            return recentLeans[slot];
        }
        LeanClass lean = LeanClass.of(type);
        recentTypes[slot] = type;
        recentLeans[slot] = lean;
        return lean;
    }

    private void writeRef(int handle) throws IOException {
        out.writeByte(LeanFormat.REF);
        out.writeVarint(handle);
    }

    private void assign(Object obj, Object orig, boolean unshared) {
        int handle = nextHandle++;
        if (!unshared) {
            handles.put(obj, handle);
            if (orig != obj) {
                handles.put(orig, handle);
            }
        }
    }

    private void writeClass(LeanClass lean) throws IOException {
        int index = lean.index;
        if (index < classIds.length && classIds[index] != 0) {
            out.writeVarint(classIds[index] - 1);
            return;
        }
        if (index >= classIds.length) {
            classIds = java.util.Arrays.copyOf(classIds, Math.max(index + 1, 2 * classIds.length));
        }
        int newId = classCount++;
        OutBuffer descriptors = out.descriptors();
        descriptors.writeVarint(newId);
        lean.writeDescriptor(descriptors, annotationOf(lean));
        classIds[index] = newId + 1;
        out.writeVarint(newId);
    }

    private String annotationOf(LeanClass lean) {
        if (annotator == null || lean.kind == LeanFormat.KIND_PRIMITIVE) {
            return null;
        }
        Class<?> type = lean.type;
        while (type.isArray()) {
            type = type.getComponentType();
        }
        if (type.isPrimitive() || type.getName().startsWith("java.")) {
            return null;
        }
        return annotator.annotation(lean.type);
    }

    private void writeArray(Object array, Object orig, LeanClass lean, boolean unshared) throws IOException {
        out.writeByte(LeanFormat.OBJECT);
        writeClass(lean);
        assign(array, orig, unshared);
        int length = java.lang.reflect.Array.getLength(array);
        out.writeVarint(length);
        Class<?> component = lean.component;
        if (component.isPrimitive()) {
            out.writePrimitiveArray(array, component, length);
        } else {
            Object[] elements = (Object[]) array;
            for (int i = 0; i < length; i++) {
                writeValue(elements[i], false);
            }
        }
    }

    private void writeSerialData(Object obj, LeanClass lean) throws IOException {
        if (lean.invalid != null) {
            throw lean.invalid;
        }
        for (LeanClass.Slot slot : lean.slots) {
            if (slot.writeObject && lean.kind != LeanFormat.KIND_RECORD) {
                Object savedObject = currentObject;
                LeanClass.Slot savedSlot = currentSlot;
                LeanPutField savedPutField = currentPutField;
                int segment = out.openSegment();
                int handlesBefore = nextHandle;
                boolean savedCustomData = customData;
                int savedBlock = openBlock;
                currentObject = obj;
                currentSlot = slot;
                currentPutField = null;
                customData = true;
                openBlock = -1;
                try {
                    JdkSerialClasses.invokeWriteObject(slot.desc, obj, facade);
                    closeBlock();
                } finally {
                    currentObject = savedObject;
                    currentSlot = savedSlot;
                    currentPutField = savedPutField;
                    customData = savedCustomData;
                    openBlock = savedBlock;
                }
                out.closeSegment(segment, nextHandle - handlesBefore);
            } else {
                writeFields(obj, slot);
            }
        }
    }

    private void writeExternalData(Externalizable obj) throws IOException {
        Object savedObject = currentObject;
        LeanClass.Slot savedSlot = currentSlot;
        LeanPutField savedPutField = currentPutField;
        int segment = out.openSegment();
        int handlesBefore = nextHandle;
        boolean savedCustomData = customData;
        int savedBlock = openBlock;
        currentObject = null;
        currentSlot = null;
        currentPutField = null;
        customData = true;
        openBlock = -1;
        try {
            obj.writeExternal(facade);
            closeBlock();
        } finally {
            currentObject = savedObject;
            currentSlot = savedSlot;
            currentPutField = savedPutField;
            customData = savedCustomData;
            openBlock = savedBlock;
        }
        out.closeSegment(segment, nextHandle - handlesBefore);
    }

    /**
     * A class's default data: its primitive fields' bytes as the JDK lays them out, then its object
     * fields. Refused, as by the JDK, for a class whose serialPersistentFields name a field it does
     * not have: the JDK's field reflector would read at no offset (a crash of the JVM).
     */
    private void writeFields(Object obj, LeanClass.Slot slot) throws IOException {
        if (slot.defaultWriteRefused) {
            JdkSerialClasses.checkDefaultSerialize(slot.desc); // throws the JDK's InvalidClassException
        }
        long[] offsets = directFields ? slot.offsets : null;
        int primSize = slot.primDataSize;
        if (offsets != null) {
            char[] codes = slot.primCodes;
            for (int i = 0; i < codes.length; i++) {
                out.writePrimValue(codes[i], DirectFields.getPrim(obj, codes[i], offsets[i]));
            }
        } else if (primSize > 0) {
            if (primScratch.length < primSize) {
                primScratch = new byte[Math.max(primSize, 2 * primScratch.length)];
            }
            JdkSerialClasses.getPrimValues(slot.desc, obj, primScratch);
            out.writePrimFields(slot, primScratch);
        }
        int count = slot.objectFields;
        if (count == 0) {
            return;
        }
        if (offsets != null && count <= FEW_FIELDS) {
            writeFewObjectFields(obj, slot, offsets, count);
            return;
        }
        Object[] values = scratch.at(depth, count);
        boolean[] unshared = slot.objectUnshared;
        int i = 0;
        depth++;
        try {
            if (offsets != null) {
                int prims = slot.primCodes.length;
                for (int j = 0; j < count; j++) {
                    values[j] = DirectFields.getReference(obj, offsets[prims + j]);
                }
            } else {
                JdkSerialClasses.getObjValues(slot.desc, obj, values);
            }
            for (; i < count; i++) {
                Object value = values[i];
                values[i] = null; // the scratch keeps no reference once the value is written
                writeValue(value, unshared[i]);
            }
        } finally {
            if (i < count) {
                java.util.Arrays.fill(values, i, count, null);
            }
            depth--;
        }
    }

    /**
     * Up to {@link #FEW_FIELDS} object fields, all taken before any is written (as the JDK takes them:
     * a nested object's hook may change a field meanwhile), held in locals rather than the scratch:
     * a store into a long-lived array costs a GC write barrier per value.
     */
    private void writeFewObjectFields(Object obj, LeanClass.Slot slot, long[] offsets, int count) throws IOException {
        int first = slot.primCodes.length;
        Object v0 = DirectFields.getReference(obj, offsets[first]);
        Object v1 = count > 1 ? DirectFields.getReference(obj, offsets[first + 1]) : null;
        Object v2 = count > 2 ? DirectFields.getReference(obj, offsets[first + 2]) : null;
        Object v3 = count > 3 ? DirectFields.getReference(obj, offsets[first + 3]) : null;
        boolean[] unshared = slot.objectUnshared;
        writeValue(v0, unshared[0]);
        if (count > 1) {
            writeValue(v1, unshared[1]);
        }
        if (count > 2) {
            writeValue(v2, unshared[2]);
        }
        if (count > 3) {
            writeValue(v3, unshared[3]);
        }
    }

    private void checkUsable() throws IOException {
        if (broken != null) {
            throw new IOException("the lean stream of this connection failed earlier (" + broken + "); the connection must close");
        }
    }

    /**
     * The writer is broken: its message is discarded, and so are its references to the message's
     * objects. RMI closes a connection whose call failed to marshal, but a closed connection's
     * writer may stay reachable a while (a closed native connection's objects did): its handles
     * would pin the arguments meanwhile (OpenJDK's PinLastArguments test).
     */
    private void fail(Throwable e) {
        if (broken == null) {
            broken = e.toString();
            out.discard();
        }
        handles.clear();
        nextHandle = 0;
        facade = null;
    }

    /** ObjectOutputStream.PutField over one class's fields, written by {@link #writeFields()}. */
    private static final class LeanPutField extends ObjectOutputStream.PutField {
        final LeanClass.Slot slot;
        final byte[] prims;
        final Object[] objects;

        LeanPutField(LeanClass.Slot slot) {
            this.slot = slot;
            this.prims = new byte[slot.primDataSize];
            this.objects = new Object[slot.objectFields];
        }

        private int offset(String name, Class<?> type) {
            ObjectStreamField field = slot.field(name, type);
            if (field == null) {
                throw new IllegalArgumentException("no such field " + name + " with type " + type);
            }
            return field.getOffset();
        }

        @Override
        public void put(String name, boolean val) {
            prims[offset(name, boolean.class)] = (byte) (val ? 1 : 0);
        }

        @Override
        public void put(String name, byte val) {
            prims[offset(name, byte.class)] = val;
        }

        @Override
        public void put(String name, char val) {
            int at = offset(name, char.class);
            prims[at] = (byte) (val >>> 8);
            prims[at + 1] = (byte) val;
        }

        @Override
        public void put(String name, short val) {
            int at = offset(name, short.class);
            prims[at] = (byte) (val >>> 8);
            prims[at + 1] = (byte) val;
        }

        @Override
        public void put(String name, int val) {
            int at = offset(name, int.class);
            for (int i = 3; i >= 0; i--) {
                prims[at + 3 - i] = (byte) (val >>> (8 * i));
            }
        }

        @Override
        public void put(String name, float val) {
            int at = offset(name, float.class);
            int bits = Float.floatToIntBits(val);
            for (int i = 3; i >= 0; i--) {
                prims[at + 3 - i] = (byte) (bits >>> (8 * i));
            }
        }

        @Override
        public void put(String name, long val) {
            int at = offset(name, long.class);
            for (int i = 7; i >= 0; i--) {
                prims[at + 7 - i] = (byte) (val >>> (8 * i));
            }
        }

        @Override
        public void put(String name, double val) {
            int at = offset(name, double.class);
            long bits = Double.doubleToLongBits(val);
            for (int i = 7; i >= 0; i--) {
                prims[at + 7 - i] = (byte) (bits >>> (8 * i));
            }
        }

        @Override
        public void put(String name, Object val) {
            objects[offset(name, Object.class)] = val;
        }

        @Override
        @Deprecated
        public void write(ObjectOutput out) throws IOException {
            throw new IOException("PutField.write is not supported by the lean format; use writeFields()");
        }
    }
}
