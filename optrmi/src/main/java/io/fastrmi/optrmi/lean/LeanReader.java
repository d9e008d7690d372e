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

    private final InBuffer in;
    /** What the JDK would count reading the same objects: what the serial filter is told. */
    private final JdkFilterModel jdk;
    /** The peer's classes, by the ids it sent them with. */
    private final ClassTable classes;
    private final ReadHandles handles = new ReadHandles();
    /** Primitives and bytes a class's hook reads; the custom data of the hooks now running. */
    private final LeanDataInput dataInput;
    private ObjectInputStream facade;
    /** A class's default data into an object. */
    final FieldReader fields;
    private int depth;
    private Object currentObject;
    private LeanClass.Slot currentSlot;
    private boolean currentSlotRead;
    /** Validations registered during the outermost readObject, run when it ends (null: none). */
    private Validations validations;
    private String broken;
    private String messageFailed;

    public LeanReader(InputStream source, ClassResolver resolver) {
        this(source, resolver, null);
    }

    /** {@code bulk}: where large primitive arrays are read straight into the array, or null (they are copied from the source). */
    public LeanReader(InputStream source, ClassResolver resolver, BulkInput bulk) {
        this.classes = new ClassTable(resolver);
        this.in = new InBuffer(source, classes, bulk); // no lambdas: each costs a class spun at its first use (StartupIT)
        this.jdk = new JdkFilterModel(resolver.readsAnnotations());
        this.dataInput = new LeanDataInput(this, in, jdk);
        this.fields = new FieldReader(in, jdk, new FieldValues());
    }

    /** What a class's readObject or readExternal reads besides objects, through this reader. */
    public LeanDataInput data() {
        return dataInput;
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
            handles.clear();
            facade = null;
            validations = null;
            dataInput.reset();
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
        CustomData hooked = dataInput.current();
        if (hooked != null) {
            objectInCustomData(hooked);
        }
        try {
            dataInput.setCurrent(null);
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
            dataInput.setCurrent(hooked);
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

    /** {@code defaultReadObject()}: the fields of the class whose readObject runs. */
    public void defaultReadObject() throws IOException, ClassNotFoundException {
        if (currentSlot == null || currentSlotRead) {
            throw new NotActiveException("not in call to readObject");
        }
        currentSlotRead = true;
        CustomData hooked = dataInput.current();
        hooked.beforeDefaultFields();
        dataInput.setCurrent(null);
        try {
            readFields(currentObject, currentSlot);
        } finally {
            dataInput.setCurrent(hooked);
        }
    }

    public ObjectInputStream.GetField readFields() throws IOException, ClassNotFoundException {
        if (currentSlot == null || currentSlotRead) {
            throw new NotActiveException("not in call to readObject");
        }
        currentSlotRead = true;
        CustomData hooked = dataInput.current();
        hooked.beforeDefaultFields();
        dataInput.setCurrent(null);
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
            dataInput.setCurrent(hooked);
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
                int handle = handles.reserve(unshared);
                String s = in.readString(Integer.MAX_VALUE);
                jdk.string(s);
                return handles.finish(handle, s, unshared);
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
    private final class FieldValues implements FieldReader.Values {
        @Override
        public Object read(boolean unshared) throws IOException, ClassNotFoundException {
            return readValue(unshared);
        }
    }

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
                int handle = handles.reserve(unshared);
                String s = in.readString(Integer.MAX_VALUE);
                jdk.string(s);
                return handles.finish(handle, s, unshared);
            }
            case LeanFormat.CLASS: {
                ClassTable.Entry entry = readClass();
                int handle = handles.reserve(unshared);
                LeanClass lean = ClassTable.usable(entry);
                return handles.finish(handle, lean.type, unshared);
            }
            case LeanFormat.OBJECT:
                return readInstance(readClass(), unshared, blockMode);
            default:
                throw new StreamCorruptedException("lean stream: unknown tag " + tag);
        }
    }

    private Object readRef(boolean unshared) throws IOException {
        Object obj = handles.referenced(in.readVarint(), unshared);
        jdk.backReference();
        return obj;
    }

    private Object readInstance(ClassTable.Entry entry, boolean unshared, boolean blockMode) throws IOException, ClassNotFoundException {
        LeanClass lean = ClassTable.usable(entry);
        switch (lean.kind) {
            case LeanFormat.KIND_ARRAY:
                return readArray(lean, unshared);
            case LeanFormat.KIND_ENUM: {
                int handle = handles.reserve(unshared);
                int ordinal = in.readVarint();
                if (ordinal >= lean.enumConstants.length) {
                    throw new StreamCorruptedException("lean stream: constant " + ordinal + " of " + lean.type.getName()
                            + ", which has " + lean.enumConstants.length);
                }
                Object constant = lean.enumConstants[ordinal];
                jdk.enumName(((Enum<?>) constant).name());
                return handles.finish(handle, constant, unshared);
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
        int handle = handles.reserve(unshared);
        Class<?> component = lean.component;
        if (component.isPrimitive()) {
            Object array = in.readPrimitiveArray(component, length);
            jdk.rawData((long) length * PrimitiveArrays.elementSize(component));
            return handles.finish(handle, array, unshared);
        }
        // Up to a million elements the array is made at once (its handle must name it while its
        // elements are read); a longer one grows as elements arrive, so a length alone never sizes memory.
        Object[] array = (Object[]) java.lang.reflect.Array.newInstance(component, Math.min(length, 1 << 20));
        handles.finish(handle, array, unshared);
        for (int i = 0; i < length; i++) {
            if (i == array.length) {
                Object[] bigger = (Object[]) java.lang.reflect.Array.newInstance(component, (int) Math.min(length, 2L * array.length));
                System.arraycopy(array, 0, bigger, 0, i);
                array = bigger;
                handles.finish(handle, array, unshared);
            }
            Object element = readValue(false);
            if (element != null && !component.isInstance(element)) {
                throw new ArrayStoreException(element.getClass().getName()); // as the JDK's store into the array
            }
            array[i] = element;
        }
        return handles.finish(handle, array, unshared);
    }

    private Object readSerial(ClassTable.Entry entry, LeanClass lean, boolean unshared, boolean blockMode)
            throws IOException, ClassNotFoundException {
        lean.checkDeserialize();
        Object obj = lean.newInstance();
        int handle = handles.reserve(unshared);
        handles.finish(handle, obj, unshared);
        LeanClass.Slot[] slots = lean.slots;
        for (int i = 0; i < slots.length; i++) {
            LeanClass.Slot slot = slots[i];
            boolean written = entry.sent.slotWriteObject[i];
            Segment segment = written ? Segment.open(in, handles, "a writeObject", slot.desc.getName()) : null;
            if (slot.readObject) {
                CustomData data = dataInput.enter(slot, slot.desc.getName() + ".readObject", written);
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
                    dataInput.leave();
                }
                skipUnread(data, defaultsRead);
            } else if (written) {
                // The JDK reads the default fields, then skips what the writeObject wrote after them.
                CustomData data = dataInput.enter(slot, slot.desc.getName() + " (no readObject here)", true);
                try {
                    data.beforeDefaultFields();
                } finally {
                    dataInput.leave();
                }
                readFields(obj, slot);
                skipUnread(data, true);
            } else {
                readFields(obj, slot);
            }
            if (segment != null) {
                segment.end(in, jdk, handles);
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
        int handle = handles.reserve(unshared);
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
        handles.finish(handle, record, unshared);
        return resolve(lean, handle, record, unshared);
    }

    private Object readExternal(LeanClass lean, boolean unshared, boolean blockMode) throws IOException, ClassNotFoundException {
        lean.checkDeserialize();
        Object obj = lean.newInstance();
        int handle = handles.reserve(unshared);
        handles.finish(handle, obj, unshared);
        Segment segment = Segment.open(in, handles, "an Externalizable", lean.type.getName());
        CustomData data = dataInput.enter(null, lean.type.getName() + ".readExternal", true);
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
            dataInput.leave();
        }
        skipUnread(data, true);
        segment.end(in, jdk, handles);
        return resolve(lean, handle, obj, unshared);
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
        depth++;
        try {
            fields.read(obj, slot, depth - 1);
        } finally {
            depth--;
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
        return handles.finish(handle, obj, unshared);
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

    /** Whether this direction is lost for good (not only the current message). */
    boolean failedForGood() {
        return broken != null;
    }

    void checkUsable() throws IOException {
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
