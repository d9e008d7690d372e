package io.fastrmi.optrmi.lean;

import java.io.Externalizable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.InvalidObjectException;
import java.io.NotActiveException;
import java.io.ObjectInputStream;
import java.io.ObjectInputValidation;
import java.io.ObjectStreamField;
import java.io.StreamCorruptedException;
import java.lang.invoke.MethodHandle;

/**
 * The receiving end of one direction of a connection in the lean format ({@link LeanFormat}).
 * Every byte is the peer's and untrusted: tags, ids, handles and lengths are checked before use,
 * a descriptor is checked against the local class before any instance of it is made, and the
 * serial filter of the stream the application sees ({@code facade}) is asked exactly where the
 * JDK asks it. A decode error breaks the reader for good (the class tables could no longer agree),
 * so its connection must close.
 */
public final class LeanReader {

    /**
     * How a class name from the peer becomes a local class (RMI: its loader rules). A resolution
     * is kept for the connection while {@link #context()} stays the same object (the class loader
     * in effect); under another, the name is resolved and checked again.
     */
    public interface Resolver {
        Class<?> resolve(String name, String annotation) throws ClassNotFoundException;

        Class<?> resolveProxy(String[] interfaces, String annotation) throws ClassNotFoundException;

        Object context();

        /** Whether the JDK's stream for this resolver reads a codebase annotation object with each class (RMI's does). */
        default boolean readsAnnotations() {
            return false;
        }
    }

    private static final Object UNSHARED = new Object();
    private static final Object SKIPPED = new Object();
    private static final int KEPT_HANDLES = 4096;

    private final InBuffer in;
    /** What the JDK would count reading the same objects: what the serial filter is told. */
    private final JdkFilterModel jdk;
    /** The peer's classes, by the ids it sent them with. */
    private final ClassTable classes;
    private Object[] handles = new Object[64];
    private int handleCount;
    private ObjectInputStream facade;
    private byte[] primScratch = new byte[64];
    /** Fields are set straight from the buffer where {@link DirectFields} can (false: tests of the other way). */
    boolean directFields = true;
    private final ObjectScratch scratch = new ObjectScratch();
    private int depth;
    private Object currentObject;
    private LeanClass.Slot currentSlot;
    private boolean currentSlotRead;
    /** Validations registered during the outermost readObject, run when it ends (null: none). */
    private Validations validations;
    /** The custom data a class's hook reads now (the JDK's block-data mode), or null. */
    private CustomData custom;
    /** Custom data contexts by nesting level, reused. */
    private CustomData[] customLevels = new CustomData[4];
    private int customLevel;
    private String broken;
    private String messageFailed;

    public LeanReader(InputStream source, Resolver resolver) {
        this.classes = new ClassTable(resolver);
        this.in = new InBuffer(source, classes::readDescriptors);
        this.jdk = new JdkFilterModel(resolver.readsAnnotations());
    }

    /** Starts reading a message; a message begun before and not ended is skipped first. */
    public void beginMessage(ObjectInputStream facade) throws IOException {
        if (this.facade != null) {
            endMessage();
        }
        checkUsable();
        this.facade = facade;
        jdk.begin(facade);
    }

    /**
     * Ends the message: skips what was not read of it and forgets its handles. A message whose
     * data failed to decode is not read further (a filter's rejection must not make us read on, as
     * stock RMI does not): the reader is then broken, and its connection closes, as RMI's client
     * closes a connection after any RemoteException.
     */
    public void endMessage() throws IOException {
        try {
            if (broken == null && messageFailed != null) {
                broken = messageFailed;
            }
            if (broken == null) {
                in.endMessage();
            }
        } catch (IOException | RuntimeException e) {
            fail(e);
            throw e;
        } finally {
            messageFailed = null;
            java.util.Arrays.fill(handles, 0, handleCount, null);
            if (handles.length > KEPT_HANDLES) {
                handles = new Object[64];
            }
            handleCount = 0;
            facade = null;
            validations = null;
            custom = null;
            customLevel = 0;
        }
    }

    /** Whether this reader failed (its current message included): its connection must close. */
    public boolean isBroken() {
        return broken != null || messageFailed != null;
    }

    public Object readObject(boolean unshared) throws IOException, ClassNotFoundException {
        return readObject(unshared, Object.class);
    }

    /**
     * An object; with {@code type} String.class only a string (or null) is read, anything else is
     * refused before it is decoded, as the JDK's readString refuses it (RMI's registry reads names so).
     */
    public Object readObject(boolean unshared, Class<?> type) throws IOException, ClassNotFoundException {
        checkUsable();
        boolean outermost = depth == 0;
        CustomData hooked = custom;
        if (hooked != null) {
            objectInCustomData(hooked);
        }
        try {
            custom = null;
            Object obj;
            if (type == String.class) {
                obj = readString(unshared);
            } else {
                obj = readValue(unshared, true);
            }
            if (outermost && validations != null) {
                Validations pending = validations;
                validations = null;
                pending.run();
            }
            return obj;
        } catch (IOException | ClassNotFoundException e) {
            fail(e);
            throw e;
        } catch (StackOverflowError e) {
            StreamCorruptedException tooDeep = new StreamCorruptedException("lean stream: objects nested too deep for this thread's stack");
            fail(tooDeep);
            throw tooDeep;
        } catch (RuntimeException | Error e) {
            // A class's own readObject, readResolve, readExternal or validation throwing: the caller
            // gets it as it is, as from the JDK's stream (applications catch these by type).
            fail(e);
            throw e;
        } finally {
            custom = hooked;
            if (outermost) {
                validations = null;
            }
        }
    }

    /** An object read by a class's hook: the JDK's answers where its writer wrote other than an object. */
    private void objectInCustomData(CustomData hooked) throws IOException {
        try {
            hooked.beforeObject();
        } catch (java.io.OptionalDataException e) {
            throw e; // nothing was consumed: the hook may catch it and read on, as on the JDK's stream
        } catch (IOException | RuntimeException e) {
            fail(e);
            throw e;
        }
    }

    public int readByte() throws IOException {
        checkUsable();
        takeBlockData(1);
        int v = in.readByte();
        jdk.blockData(1);
        return v;
    }

    public int readUnsignedByte() throws IOException {
        checkUsable();
        takeBlockData(1);
        int v = in.readUnsignedByte();
        jdk.blockData(1);
        return v;
    }

    public short readShort() throws IOException {
        checkUsable();
        takeBlockData(2);
        short v = in.readShort();
        jdk.blockData(2);
        return v;
    }

    public int readInt() throws IOException {
        checkUsable();
        takeBlockData(4);
        int v = in.readInt();
        jdk.blockData(4);
        return v;
    }

    public long readLong() throws IOException {
        checkUsable();
        takeBlockData(8);
        long v = in.readLong();
        jdk.blockData(8);
        return v;
    }

    public void readFully(byte[] b, int off, int len) throws IOException {
        checkUsable();
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len > 0) {
            takeBlockData(len);
        }
        in.readFully(b, off, len);
        jdk.blockData(len);
    }

    public int read(byte[] b, int off, int len) throws IOException {
        checkUsable();
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (custom != null && len > 0) {
            len = (int) custom.available(len);
            if (len == 0) {
                return -1; // as the JDK's block-data mode at an object or the end of the data
            }
        }
        int n = in.read(b, off, len);
        jdk.blockData(Math.max(n, 0));
        return n;
    }

    public long skip(long n) throws IOException {
        checkUsable();
        if (custom != null) {
            n = custom.available(n);
        }
        long skipped = in.skip(n);
        jdk.blockData(skipped);
        return skipped;
    }

    public int available() {
        if (broken != null) {
            return 0;
        }
        return custom != null ? (int) Math.min(custom.blockLeft(), in.available()) : in.available();
    }

    public boolean readBoolean() throws IOException {
        return readByte() != 0;
    }

    public char readChar() throws IOException {
        return (char) readShort();
    }

    public int readUnsignedShort() throws IOException {
        return readShort() & 0xFFFF;
    }

    public float readFloat() throws IOException {
        return Float.intBitsToFloat(readInt());
    }

    public double readDouble() throws IOException {
        return Double.longBitsToDouble(readLong());
    }

    /** One byte, or -1 at the end of the data. */
    public int read() throws IOException {
        checkUsable();
        if (custom != null && custom.available(1) == 0) {
            return -1;
        }
        int v = in.read();
        jdk.blockData(v < 0 ? 0 : 1);
        return v;
    }

    public String readUTF() throws IOException {
        checkUsable();
        String s;
        if (custom != null) {
            takeBlockData(1);
            long outer = in.limit();
            in.setLimit(in.position() + custom.blockLeft()); // a string within its block
            try {
                s = in.readString(Integer.MAX_VALUE);
            } finally {
                in.setLimit(outer);
            }
        } else {
            s = in.readString(Integer.MAX_VALUE);
        }
        jdk.blockData(2 + JdkDescriptor.utfLength(s));
        return s;
    }

    /** {@code defaultReadObject()}: the fields of the class whose readObject runs. */
    public void defaultReadObject() throws IOException, ClassNotFoundException {
        if (currentSlot == null || currentSlotRead) {
            throw new NotActiveException("not in call to readObject");
        }
        currentSlotRead = true;
        CustomData hooked = custom;
        hooked.beforeDefaultFields();
        custom = null;
        try {
            readFields(currentObject, currentSlot);
        } finally {
            custom = hooked;
        }
    }

    public ObjectInputStream.GetField readFields() throws IOException, ClassNotFoundException {
        if (currentSlot == null || currentSlotRead) {
            throw new NotActiveException("not in call to readObject");
        }
        currentSlotRead = true;
        CustomData hooked = custom;
        hooked.beforeDefaultFields();
        custom = null;
        try {
            LeanGetField fields = new LeanGetField(currentSlot);
            in.readPrimFields(currentSlot, fields.prims);
            jdk.rawData(currentSlot.primDataSize);
            ObjectStreamField[] declared = currentSlot.fields;
            int first = declared.length - currentSlot.objectFields;
            for (int i = 0; i < fields.objects.length; i++) {
                fields.objects[i] = readValue(declared[first + i].isUnshared());
            }
            return fields;
        } finally {
            custom = hooked;
        }
    }

    public void registerValidation(ObjectInputValidation validation, int priority) throws InvalidObjectException, NotActiveException {
        if (depth == 0) {
            throw new NotActiveException("stream inactive");
        }
        if (validation == null) {
            throw new InvalidObjectException("null callback");
        }
        if (validations == null) {
            validations = new Validations();
        }
        validations.add(validation, priority);
    }

    /** A string or null, as the JDK's {@code readObject0} reads it for {@code readObject(String.class)}. */
    private Object readString(boolean unshared) throws IOException, ClassNotFoundException {
        jdk.enterValue();
        try {
            return decodeString(unshared);
        } finally {
            jdk.exitValue();
        }
    }

    private Object decodeString(boolean unshared) throws IOException {
        int tag = in.readByte();
        switch (tag) {
            case LeanFormat.NULL:
                return null;
            case LeanFormat.STRING: {
                int handle = reserve(unshared);
                String s = in.readString(Integer.MAX_VALUE);
                jdk.string(s);
                return finish(handle, s, unshared);
            }
            case LeanFormat.REF: {
                Object obj = readRef(unshared);
                if (!(obj instanceof String)) {
                    throw new ClassCastException("Cannot cast a reference to a " + obj.getClass().getName() + " to java.lang.String");
                }
                return obj;
            }
            default:
                throw new ClassCastException("Cannot cast an object to java.lang.String");
        }
    }

    /** A field's or an element's value. */
    private Object readValue(boolean unshared) throws IOException, ClassNotFoundException {
        return readValue(unshared, false);
    }

    /**
     * One value: what the JDK's {@code readObject0} reads (one reference, one level deeper);
     * {@code blockMode}: read by readObject itself, not as a field or an element. A failure fails
     * the message, so the counts need no unwinding.
     */
    private Object readValue(boolean unshared, boolean blockMode) throws IOException, ClassNotFoundException {
        jdk.enterValue();
        Object value = decodeValue(unshared, blockMode);
        jdk.exitValue();
        return value;
    }

    /** A hook's OptionalDataException that escapes it, as the JDK's readObject0 gives it to the reader of its object. */
    private static java.io.OptionalDataException escaped(java.io.OptionalDataException e, boolean blockMode) {
        if (blockMode || e.eof) {
            return e;
        }
        // Its block is left unread: going back to non-block mode for a field or an element, the JDK throws this.
        throw new IllegalStateException("unread block data");
    }

    private Object decodeValue(boolean unshared, boolean blockMode) throws IOException, ClassNotFoundException {
        int tag = in.readByte();
        switch (tag) {
            case LeanFormat.NULL:
                return null;
            case LeanFormat.REF:
                return readRef(unshared);
            case LeanFormat.STRING: {
                int handle = reserve(unshared);
                String s = in.readString(Integer.MAX_VALUE);
                jdk.string(s);
                return finish(handle, s, unshared);
            }
            case LeanFormat.CLASS: {
                ClassTable.Entry entry = readClass();
                int handle = reserve(unshared);
                LeanClass lean = ClassTable.usable(entry);
                return finish(handle, lean.type, unshared);
            }
            case LeanFormat.OBJECT:
                return readInstance(readClass(), unshared, blockMode);
            default:
                throw new StreamCorruptedException("lean stream: unknown tag " + tag);
        }
    }

    private Object readRef(boolean unshared) throws IOException {
        int handle = in.readVarint();
        if (handle >= handleCount) {
            throw new StreamCorruptedException("lean stream: a reference to object " + handle + " of " + handleCount);
        }
        if (unshared) {
            throw new InvalidObjectException("cannot read back reference as unshared");
        }
        Object obj = handles[handle];
        if (obj == UNSHARED) {
            throw new InvalidObjectException("cannot read back reference to unshared object");
        }
        if (obj == SKIPPED) {
            throw new StreamCorruptedException("lean stream: a reference to an object its reader skipped");
        }
        jdk.backReference();
        return obj;
    }

    private Object readInstance(ClassTable.Entry entry, boolean unshared, boolean blockMode) throws IOException, ClassNotFoundException {
        LeanClass lean = ClassTable.usable(entry);
        switch (lean.kind) {
            case LeanFormat.KIND_ARRAY:
                return readArray(lean, unshared);
            case LeanFormat.KIND_ENUM: {
                int handle = reserve(unshared);
                int ordinal = in.readVarint();
                if (ordinal >= lean.enumConstants.length) {
                    throw new StreamCorruptedException("lean stream: constant " + ordinal + " of " + lean.type.getName()
                            + ", which has " + lean.enumConstants.length);
                }
                Object constant = lean.enumConstants[ordinal];
                jdk.enumName(((Enum<?>) constant).name());
                return finish(handle, constant, unshared);
            }
            case LeanFormat.KIND_SERIAL:
            case LeanFormat.KIND_PROXY:
                return readSerial(entry, lean, unshared, blockMode);
            case LeanFormat.KIND_RECORD:
                return readRecord(lean, unshared);
            case LeanFormat.KIND_EXTERNAL:
                return readExternal(lean, unshared, blockMode);
            default:
                throw new InvalidClassException(lean.type.getName(), "sent as an instance of a class that is "
                        + LeanFormat.kindName(lean.kind));
        }
    }

    private Object readArray(LeanClass lean, boolean unshared) throws IOException, ClassNotFoundException {
        int length = in.readVarint();
        jdk.arrayLength(lean.type, length);
        int handle = reserve(unshared);
        Class<?> component = lean.component;
        if (component.isPrimitive()) {
            Object array = in.readPrimitiveArray(component, length);
            jdk.rawData((long) length * PrimitiveArrays.elementSize(component));
            return finish(handle, array, unshared);
        }
        // Up to a million elements the array is made at once (its handle must name it while its
        // elements are read); a longer one grows as elements arrive, so a length alone never sizes memory.
        Object[] array = (Object[]) java.lang.reflect.Array.newInstance(component, Math.min(length, 1 << 20));
        finish(handle, array, unshared);
        for (int i = 0; i < length; i++) {
            if (i == array.length) {
                Object[] bigger = (Object[]) java.lang.reflect.Array.newInstance(component, (int) Math.min(length, 2L * array.length));
                System.arraycopy(array, 0, bigger, 0, i);
                array = bigger;
                finish(handle, array, unshared);
            }
            Object element = readValue(false);
            if (element != null && !component.isInstance(element)) {
                throw new ArrayStoreException(element.getClass().getName()); // as the JDK's store into the array
            }
            array[i] = element;
        }
        return finish(handle, array, unshared);
    }

    private Object readSerial(ClassTable.Entry entry, LeanClass lean, boolean unshared, boolean blockMode)
            throws IOException, ClassNotFoundException {
        lean.checkDeserialize();
        Object obj = lean.newInstance();
        int handle = reserve(unshared);
        finish(handle, obj, unshared);
        LeanClass.Slot[] slots = lean.slots;
        for (int i = 0; i < slots.length; i++) {
            LeanClass.Slot slot = slots[i];
            boolean written = entry.sent.slotWriteObject[i];
            Segment segment = written ? openSegment("a writeObject", slot.desc.getName()) : null;
            if (slot.readObject) {
                CustomData data = enterCustomData(slot, slot.desc.getName() + ".readObject", written);
                Object savedObject = currentObject;
                LeanClass.Slot savedSlot = currentSlot;
                boolean savedRead = currentSlotRead;
                currentObject = obj;
                currentSlot = slot;
                currentSlotRead = false;
                boolean defaultsRead = false;
                depth++;
                jdk.hookStarts();
                try {
                    JdkSerialClasses.invokeReadObject(slot.desc, obj, facade);
                } catch (java.io.OptionalDataException e) {
                    throw escaped(e, blockMode);
                } catch (IOException e) {
                    throw named(e, slot.desc.getName() + ".readObject");
                } finally {
                    defaultsRead = currentSlotRead;
                    jdk.hookEnds();
                    depth--;
                    currentObject = savedObject;
                    currentSlot = savedSlot;
                    currentSlotRead = savedRead;
                    leaveCustomData();
                }
                skipUnread(data, defaultsRead);
            } else if (written) {
                // The JDK reads the default fields, then skips what the writeObject wrote after them.
                CustomData data = enterCustomData(slot, slot.desc.getName() + " (no readObject here)", true);
                try {
                    data.beforeDefaultFields();
                } finally {
                    leaveCustomData();
                }
                readFields(obj, slot);
                skipUnread(data, true);
            } else {
                readFields(obj, slot);
            }
            if (segment != null) {
                endSegment(segment);
            }
        }
        return resolve(lean, handle, obj, unshared);
    }

    private Object readRecord(LeanClass lean, boolean unshared) throws IOException, ClassNotFoundException {
        LeanClass.Slot slot = lean.slots[0];
        byte[] prims = new byte[slot.primDataSize];
        in.readPrimFields(slot, prims);
        jdk.rawData(slot.primDataSize);
        Object[] objects = new Object[slot.objectFields];
        ObjectStreamField[] fields = slot.fields;
        int first = fields.length - objects.length;
        int handle = reserve(unshared);
        depth++;
        try {
            for (int i = 0; i < objects.length; i++) {
                objects[i] = readValue(fields[first + i].isUnshared());
            }
        } finally {
            depth--;
        }
        MethodHandle ctor = lean.recordConstructor();
        Object record;
        try {
            record = (Object) ctor.invokeExact(prims, objects);
        } catch (ClassCastException e) {
            throw new InvalidObjectException("lean stream: a field of record " + lean.type.getName() + " has the wrong type: " + e.getMessage());
        } catch (Error e) {
            throw e; // as the JDK's readRecord: an Error passes, an exception becomes InvalidObjectException
        } catch (Throwable t) {
            InvalidObjectException e = new InvalidObjectException(t.getMessage() == null ? t.toString() : t.getMessage());
            e.initCause(t);
            throw e;
        }
        finish(handle, record, unshared);
        return resolve(lean, handle, record, unshared);
    }

    private Object readExternal(LeanClass lean, boolean unshared, boolean blockMode) throws IOException, ClassNotFoundException {
        lean.checkDeserialize();
        Object obj = lean.newInstance();
        int handle = reserve(unshared);
        finish(handle, obj, unshared);
        Segment segment = openSegment("an Externalizable", lean.type.getName());
        CustomData data = enterCustomData(null, lean.type.getName() + ".readExternal", true);
        Object savedObject = currentObject;
        LeanClass.Slot savedSlot = currentSlot;
        currentObject = null;
        currentSlot = null;
        depth++;
        jdk.hookStarts();
        try {
            ((Externalizable) obj).readExternal(facade);
        } catch (java.io.OptionalDataException e) {
            throw escaped(e, blockMode);
        } catch (IOException e) {
            throw named(e, lean.type.getName() + ".readExternal");
        } finally {
            jdk.hookEnds();
            depth--;
            currentObject = savedObject;
            currentSlot = savedSlot;
            leaveCustomData();
        }
        skipUnread(data, true);
        endSegment(segment);
        return resolve(lean, handle, obj, unshared);
    }

    /** A hook's custom data becomes the current one (the reader's context for its primitive reads and objects). */
    private CustomData enterCustomData(LeanClass.Slot slot, String owner, boolean written) {
        if (customLevel == customLevels.length) {
            customLevels = java.util.Arrays.copyOf(customLevels, 2 * customLevels.length);
        }
        CustomData data = customLevels[customLevel];
        if (data == null) {
            data = customLevels[customLevel] = new CustomData(in, jdk);
        }
        customLevel++;
        custom = data.start(slot, owner, written);
        return data;
    }

    private void leaveCustomData() {
        customLevel--;
        custom = customLevel == 0 ? null : customLevels[customLevel - 1];
    }

    /** Before {@code n} bytes of primitive data are read: in a hook's custom data they must be in a block. */
    private void takeBlockData(long n) throws IOException {
        if (custom != null) {
            custom.take(n);
        }
    }

    /**
     * What a hook left unread of its custom data, skipped as the JDK's skipCustomData skips it: blocks
     * passed over, objects read (so filters and handles count them as the JDK's do), default fields
     * read if they are objects only (the JDK would take primitive field bytes for type codes).
     */
    private void skipUnread(CustomData data, boolean defaultsRead) throws IOException, ClassNotFoundException {
        if (!data.written()) {
            LeanClass.Slot slot = data.slot();
            if (!defaultsRead && (slot.primDataSize > 0 || slot.objectFields > 0)) {
                throw new StreamCorruptedException("lean stream: " + data.owner() + " did not read the default fields of "
                        + slot.desc.getName() + ", which its writer had no writeObject to replace");
            }
            return;
        }
        while (data.skipBlock()) {
            if (data.blockLeft() > 0) {
                continue;
            }
            if (data.defaultFieldsNext()) {
                LeanClass.Slot slot = data.slot();
                if (slot == null || slot.primDataSize > 0) {
                    throw new StreamCorruptedException("lean stream: " + data.owner() + " left default fields unread");
                }
                for (int i = 0; i < slot.objectFields; i++) {
                    readValue(false);
                }
            } else if (!in.atLimit()) {
                readValue(false);
            }
        }
    }

    /** A class's own exception passes as it is, unless it says nothing: then it is named (Hashtable's do not). */
    private static IOException named(IOException e, String where) {
        if (e.getMessage() != null && !e.getMessage().isBlank() || e instanceof java.io.OptionalDataException) {
            return e;
        }
        InvalidObjectException named = new InvalidObjectException("lean stream: " + where + " threw " + e.getClass().getName());
        named.initCause(e);
        return named;
    }

    /** A class's default data into obj: primitive fields, then object fields (their types checked). */
    private void readFields(Object obj, LeanClass.Slot slot) throws IOException, ClassNotFoundException {
        jdk.rawData(slot.primDataSize);
        long[] offsets = directFields ? slot.offsets : null;
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
        depth++;
        try {
            if (offsets != null && count <= LeanWriter.FEW_FIELDS) {
                readFewObjectFields(obj, slot, offsets, count);
                return;
            }
            Object[] values = scratch.at(depth - 1, count);
            boolean[] unshared = slot.objectUnshared;
            try {
                for (int i = 0; i < count; i++) {
                    values[i] = readValue(unshared[i]);
                }
                if (offsets != null) {
                    setObjectsDirectly(obj, slot, offsets, values);
                } else {
                    JdkSerialClasses.setObjValues(slot.desc, obj, values);
                }
            } finally {
                java.util.Arrays.fill(values, 0, count, null);
            }
        } finally {
            depth--;
        }
    }

    /**
     * Up to {@link LeanWriter#FEW_FIELDS} object fields, read into locals rather than the scratch (a
     * store into a long-lived array costs a GC write barrier per value); set as the others are.
     */
    private void readFewObjectFields(Object obj, LeanClass.Slot slot, long[] offsets, int count)
            throws IOException, ClassNotFoundException {
        boolean[] unshared = slot.objectUnshared;
        Object v0 = readValue(unshared[0]);
        Object v1 = count > 1 ? readValue(unshared[1]) : null;
        Object v2 = count > 2 ? readValue(unshared[2]) : null;
        Object v3 = count > 3 ? readValue(unshared[3]) : null;
        checkFieldValue(slot, 0, v0); // the values past count are null, and pass
        checkFieldValue(slot, 1, v1);
        checkFieldValue(slot, 2, v2);
        checkFieldValue(slot, 3, v3);
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

    /** Every value is checked against its field's type before any is set, as the JDK's field reflector does. */
    static void setObjectsDirectly(Object obj, LeanClass.Slot slot, long[] offsets, Object[] values) {
        int count = slot.objectTypes.length;
        for (int i = 0; i < count; i++) {
            checkFieldValue(slot, i, values[i]);
        }
        int prims = slot.primCodes.length;
        for (int i = 0; i < count; i++) {
            DirectFields.putReference(obj, offsets[prims + i], values[i]);
        }
    }

    /** Throws the JDK's ClassCastException when {@code value} cannot be the {@code i}th object field's. */
    private static void checkFieldValue(LeanClass.Slot slot, int i, Object value) {
        if (value != null && !slot.objectTypes[i].isInstance(value)) {
            ObjectStreamField field = slot.fields[slot.primCodes.length + i];
            throw new ClassCastException("cannot assign instance of " + value.getClass().getName() + " to field "
                    + slot.desc.getName() + "." + field.getName() + " of type " + slot.objectTypes[i].getName());
        }
    }

    private Object resolve(LeanClass lean, int handle, Object obj, boolean unshared) throws IOException {
        if (lean.readResolve) {
            Object rep = JdkSerialClasses.invokeReadResolve(lean.desc, obj);
            if (rep != obj) {
                jdk.replacement(rep);
                obj = rep;
            }
        }
        return finish(handle, obj, unshared);
    }

    private int reserve(boolean unshared) {
        if (handleCount == handles.length) {
            handles = java.util.Arrays.copyOf(handles, 2 * handles.length);
        }
        int handle = handleCount++;
        handles[handle] = unshared ? UNSHARED : null;
        return handle;
    }

    private Object finish(int handle, Object obj, boolean unshared) {
        if (!unshared) {
            handles[handle] = obj;
        }
        return obj;
    }

    /** A segment being read: where reading stops, and the handle count the writer reached in it. */
    private record Segment(long outerLimit, int handlesAtEnd) {
    }

    /** Reads a segment's header and keeps reads within it; {@code what} and {@code owner} name it in errors. */
    private Segment openSegment(String what, String owner) throws IOException {
        int length = in.readInt();
        int count = in.readInt();
        if (length < 0 || count < 0 || count > length || in.position() + length > in.limit()) {
            throw new StreamCorruptedException("lean stream: " + what + " segment of " + length + " bytes, "
                    + count + " objects, in " + owner);
        }
        Segment segment = new Segment(in.limit(), handleCount + count);
        in.setLimit(in.position() + length);
        return segment;
    }

    /**
     * Leaves a segment: what its reader left unread is skipped (it must all be there), and later
     * handles keep the writer's numbers.
     */
    private void endSegment(Segment segment) throws IOException {
        long end = in.limit();
        in.skip(end - in.position());
        jdk.customDataEnd();
        if (in.position() != end) {
            throw new java.io.EOFException("lean stream: the message ended inside a writeObject's or writeExternal's data");
        }
        in.setLimit(segment.outerLimit());
        int handlesAtEnd = segment.handlesAtEnd();
        if (handlesAtEnd < handleCount) {
            throw new StreamCorruptedException("lean stream: a segment announced fewer objects than it held");
        }
        while (handleCount < handlesAtEnd) {
            if (handleCount == handles.length) {
                handles = java.util.Arrays.copyOf(handles, 2 * handles.length);
            }
            handles[handleCount++] = SKIPPED;
        }
    }

    /** A class id: its entry, and what the JDK would read and ask the filter for its descriptor. */
    private ClassTable.Entry readClass() throws IOException {
        ClassTable.Entry entry = classes.entry(in.readVarint());
        if (entry.local != null) {
            jdk.descriptor(entry.jdkDescriptor, entry.sent.annotation);
        } else {
            jdk.unresolvedDescriptor();
        }
        return entry;
    }

    private void checkUsable() throws IOException {
        if (broken != null) {
            throw new IOException("the lean stream of this connection failed earlier (" + broken + "); the connection must close");
        }
        if (messageFailed != null) {
            throw new IOException("this lean message failed to decode earlier (" + messageFailed + "); its rest is skipped");
        }
    }

    /**
     * A failure of the frames or descriptors loses this direction at once; one of a message's data
     * (a class that differs, a filter's rejection, bytes a class's readObject refuses) fails the rest
     * of that message, and the reader when the message ends (see {@link #endMessage}).
     */
    private void fail(Throwable e) {
        if (in.framingBroken()) {
            if (broken == null) {
                broken = e.toString();
            }
        } else if (messageFailed == null) {
            messageFailed = e.toString();
        }
    }


}
