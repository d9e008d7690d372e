package io.fastrmi.optrmi.lean;

import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;

/**
 * The JDK's own serialization metadata, reached through {@link ObjectStreamClass}'s package-private
 * methods: which fields a class serializes, its private writeObject/readObject/readResolve hooks, the
 * constructor serialization calls, field values in and out (where {@link DirectFields} cannot). The
 * lean format reuses all of it, so a class serializes with the JDK's exact rules (serialPersistentFields, records, non-serializable
 * parents, ...) and only the bytes differ. The one place that touches {@code java.io}'s internals:
 * it needs {@code java.io} opened to this module (the agent opens it; tests pass
 * {@code --add-opens java.base/java.io=ALL-UNNAMED}). Identical on JDK 17 and 25.
 */
final class JdkSerialClasses {

    private static final MethodHandle LOOKUP;
    private static final MethodHandle CHECK_SERIALIZE;
    private static final MethodHandle CHECK_DESERIALIZE;
    private static final MethodHandle CHECK_DEFAULT_SERIALIZE;
    private static final MethodHandle HAS_WRITE_OBJECT;
    private static final MethodHandle HAS_READ_OBJECT;
    private static final MethodHandle HAS_WRITE_REPLACE;
    private static final MethodHandle HAS_READ_RESOLVE;
    private static final MethodHandle NEW_INSTANCE;
    private static final MethodHandle INVOKE_WRITE_OBJECT;
    private static final MethodHandle INVOKE_READ_OBJECT;
    private static final MethodHandle INVOKE_WRITE_REPLACE;
    private static final MethodHandle INVOKE_READ_RESOLVE;
    private static final MethodHandle CLASS_DATA_LAYOUT;
    private static final MethodHandle SLOT_DESC;
    private static final MethodHandle PRIM_DATA_SIZE;
    private static final MethodHandle NUM_OBJ_FIELDS;
    private static final MethodHandle GET_PRIM_VALUES;
    private static final MethodHandle SET_PRIM_VALUES;
    private static final MethodHandle GET_OBJ_VALUES;
    private static final MethodHandle SET_OBJ_VALUES;
    private static final MethodHandle RECORD_CONSTRUCTOR;
    /** OptionalDataException's constructors (package-private): the JDK's answer to reading an object where data is. */
    private static final MethodHandle OPTIONAL_DATA_LENGTH;
    private static final MethodHandle OPTIONAL_DATA_END;
    private static final java.lang.invoke.VarHandle SERIAL_FILTER;
    private static final java.lang.invoke.VarHandle STREAM_FILTER_SET;
    /** The stream's count of objects read, by which setObjectInputFilter refuses a filter set too late (null: not found). */
    private static final java.lang.invoke.VarHandle TOTAL_OBJECT_REFS = findTotalObjectRefs();
    private static final String UNAVAILABLE;
    /** Only {@code allocateInstance}, which is not among the memory-access methods JDK 23 deprecated. */
    private static final MethodHandle ALLOCATE_INSTANCE = findAllocateInstance();

    static {
        MethodHandle[] h = new MethodHandle[24];
        java.lang.invoke.VarHandle serialFilter = null;
        java.lang.invoke.VarHandle streamFilterSet = null;
        String unavailable = null;
        try {
            MethodHandles.Lookup io = MethodHandles.privateLookupIn(ObjectStreamClass.class, MethodHandles.lookup());
            Class<?> osc = ObjectStreamClass.class;
            Class<?> slot = Class.forName("java.io.ObjectStreamClass$ClassDataSlot", false, null);
            // Not initialized here: its initialization costs 5-6 ms, which only a record's reading needs
            // (the handle initializes it at its first call).
            Class<?> records = Class.forName("java.io.ObjectStreamClass$RecordSupport", false, null);
            h[0] = io.findStatic(osc, "lookup", MethodType.methodType(osc, Class.class, boolean.class));
            h[1] = io.findVirtual(osc, "checkSerialize", MethodType.methodType(void.class));
            h[2] = io.findVirtual(osc, "checkDeserialize", MethodType.methodType(void.class));
            h[3] = io.findVirtual(osc, "checkDefaultSerialize", MethodType.methodType(void.class));
            h[4] = io.findVirtual(osc, "hasWriteObjectMethod", MethodType.methodType(boolean.class));
            h[5] = io.findVirtual(osc, "hasReadObjectMethod", MethodType.methodType(boolean.class));
            h[6] = io.findVirtual(osc, "hasWriteReplaceMethod", MethodType.methodType(boolean.class));
            h[7] = io.findVirtual(osc, "hasReadResolveMethod", MethodType.methodType(boolean.class));
            h[8] = io.findVirtual(osc, "newInstance", MethodType.methodType(Object.class));
            h[9] = io.findVirtual(osc, "invokeWriteObject", MethodType.methodType(void.class, Object.class, ObjectOutputStream.class));
            h[10] = io.findVirtual(osc, "invokeReadObject", MethodType.methodType(void.class, Object.class, ObjectInputStream.class));
            h[11] = io.findVirtual(osc, "invokeWriteReplace", MethodType.methodType(Object.class, Object.class));
            h[12] = io.findVirtual(osc, "invokeReadResolve", MethodType.methodType(Object.class, Object.class));
            h[13] = io.findVirtual(osc, "getClassDataLayout", MethodType.methodType(slot.arrayType()))
                    .asType(MethodType.methodType(Object[].class, osc));
            h[14] = io.findGetter(slot, "desc", osc).asType(MethodType.methodType(osc, Object.class));
            h[15] = io.findVirtual(osc, "getPrimDataSize", MethodType.methodType(int.class));
            h[16] = io.findVirtual(osc, "getNumObjFields", MethodType.methodType(int.class));
            h[17] = io.findVirtual(osc, "getPrimFieldValues", MethodType.methodType(void.class, Object.class, byte[].class));
            h[18] = io.findVirtual(osc, "setPrimFieldValues", MethodType.methodType(void.class, Object.class, byte[].class));
            h[19] = io.findVirtual(osc, "getObjFieldValues", MethodType.methodType(void.class, Object.class, Object[].class));
            h[20] = io.findVirtual(osc, "setObjFieldValues", MethodType.methodType(void.class, Object.class, Object[].class));
            h[21] = io.findStatic(records, "deserializationCtr", MethodType.methodType(MethodHandle.class, osc));
            h[22] = io.findConstructor(java.io.OptionalDataException.class, MethodType.methodType(void.class, int.class));
            h[23] = io.findConstructor(java.io.OptionalDataException.class, MethodType.methodType(void.class, boolean.class));
            MethodHandles.Lookup input = MethodHandles.privateLookupIn(ObjectInputStream.class, MethodHandles.lookup());
            serialFilter = input.findVarHandle(ObjectInputStream.class, "serialFilter", java.io.ObjectInputFilter.class);
            streamFilterSet = input.findVarHandle(ObjectInputStream.class, "streamFilterSet", boolean.class);
        } catch (ReflectiveOperationException | IllegalAccessError | RuntimeException e) {
            unavailable = "the lean format needs java.io opened to FastRMI (" + e + ")";
        }
        UNAVAILABLE = unavailable;
        SERIAL_FILTER = serialFilter;
        STREAM_FILTER_SET = streamFilterSet;
        LOOKUP = h[0];
        CHECK_SERIALIZE = h[1];
        CHECK_DESERIALIZE = h[2];
        CHECK_DEFAULT_SERIALIZE = h[3];
        HAS_WRITE_OBJECT = h[4];
        HAS_READ_OBJECT = h[5];
        HAS_WRITE_REPLACE = h[6];
        HAS_READ_RESOLVE = h[7];
        NEW_INSTANCE = h[8];
        INVOKE_WRITE_OBJECT = h[9];
        INVOKE_READ_OBJECT = h[10];
        INVOKE_WRITE_REPLACE = h[11];
        INVOKE_READ_RESOLVE = h[12];
        CLASS_DATA_LAYOUT = h[13];
        SLOT_DESC = h[14];
        PRIM_DATA_SIZE = h[15];
        NUM_OBJ_FIELDS = h[16];
        GET_PRIM_VALUES = h[17];
        SET_PRIM_VALUES = h[18];
        GET_OBJ_VALUES = h[19];
        SET_OBJ_VALUES = h[20];
        RECORD_CONSTRUCTOR = h[21];
        OPTIONAL_DATA_LENGTH = h[22];
        OPTIONAL_DATA_END = h[23];
    }

    /** {@code new OptionalDataException(length)}: primitive data, {@code length} bytes of it in the block, is next. */
    static java.io.OptionalDataException optionalData(int length) {
        try {
            return (java.io.OptionalDataException) OPTIONAL_DATA_LENGTH.invokeExact(length);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code new OptionalDataException(true)}: the end of a class's custom data is next. */
    static java.io.OptionalDataException optionalDataEnd() {
        try {
            return (java.io.OptionalDataException) OPTIONAL_DATA_END.invokeExact(true);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    private JdkSerialClasses() {
    }

    /** Why the lean format cannot run in this JVM, or null when it can. */
    static String unavailableReason() {
        return UNAVAILABLE;
    }

    /** The JDK's descriptor of a class, serializable or not (as {@code ObjectStreamClass.lookupAny}). */
    static ObjectStreamClass lookup(Class<?> type) {
        try {
            return (ObjectStreamClass) LOOKUP.invokeExact(type, true);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void checkSerialize(ObjectStreamClass desc) throws InvalidClassException {
        try {
            CHECK_SERIALIZE.invokeExact(desc);
        } catch (InvalidClassException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void checkDeserialize(ObjectStreamClass desc) throws InvalidClassException {
        try {
            CHECK_DESERIALIZE.invokeExact(desc);
        } catch (InvalidClassException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void checkDefaultSerialize(ObjectStreamClass desc) throws InvalidClassException {
        try {
            CHECK_DEFAULT_SERIALIZE.invokeExact(desc);
        } catch (InvalidClassException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static boolean hasWriteObject(ObjectStreamClass desc) {
        return flag(HAS_WRITE_OBJECT, desc);
    }

    static boolean hasReadObject(ObjectStreamClass desc) {
        return flag(HAS_READ_OBJECT, desc);
    }

    static boolean hasWriteReplace(ObjectStreamClass desc) {
        return flag(HAS_WRITE_REPLACE, desc);
    }

    static boolean hasReadResolve(ObjectStreamClass desc) {
        return flag(HAS_READ_RESOLVE, desc);
    }

    /**
     * A new instance of a class whose first non-serializable parent is {@code Object} and that has
     * no finalizer, made by allocation alone: what deserialization's constructor call would make
     * ({@code Object}'s constructor does nothing else), without its reflective call (a sixth of a
     * tree's read). Only when {@link #canAllocate} (this runtime has {@code sun.misc.Unsafe}).
     */
    static Object allocate(Class<?> type) throws IOException {
        try {
            return (Object) ALLOCATE_INSTANCE.invokeExact(type);
        } catch (InstantiationException e) {
            throw new java.io.InvalidObjectException("cannot make an instance of " + type.getName() + ": " + e);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static boolean canAllocate() {
        return ALLOCATE_INSTANCE != null;
    }

    /** sun.misc.Unsafe's allocateInstance, bound; reached by reflection (jdk.unsupported opens sun.misc). */
    private static MethodHandle findAllocateInstance() {
        try {
            Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            java.lang.reflect.Field field = unsafeClass.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            return MethodHandles.lookup()
                    .findVirtual(unsafeClass, "allocateInstance", MethodType.methodType(Object.class, Class.class))
                    .bindTo(field.get(null));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** A new instance as deserialization makes it: the first non-serializable parent's no-arg constructor runs. */
    static Object newInstance(ObjectStreamClass desc) throws IOException {
        try {
            return (Object) NEW_INSTANCE.invokeExact(desc);
        } catch (Error e) {
            throw e;
        } catch (Throwable t) {
            // As ObjectInputStream.readOrdinaryObject reports any exception of the constructor's call.
            InvalidClassException e = new InvalidClassException(desc.getName(), "unable to create instance");
            e.initCause(t);
            throw e;
        }
    }

    static void invokeWriteObject(ObjectStreamClass desc, Object obj, ObjectOutputStream out) throws IOException {
        try {
            INVOKE_WRITE_OBJECT.invokeExact(desc, obj, out);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static void invokeReadObject(ObjectStreamClass desc, Object obj, ObjectInputStream in)
            throws IOException, ClassNotFoundException {
        try {
            INVOKE_READ_OBJECT.invokeExact(desc, obj, in);
        } catch (ClassNotFoundException e) {
            throw e;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static Object invokeWriteReplace(ObjectStreamClass desc, Object obj) throws IOException {
        try {
            return (Object) INVOKE_WRITE_REPLACE.invokeExact(desc, obj);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static Object invokeReadResolve(ObjectStreamClass desc, Object obj) throws IOException {
        try {
            return (Object) INVOKE_READ_RESOLVE.invokeExact(desc, obj);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The serializable classes of a hierarchy, the topmost first: the order their data is written in. */
    static ObjectStreamClass[] dataLayout(ObjectStreamClass desc) throws InvalidClassException {
        try {
            Object[] slots = (Object[]) CLASS_DATA_LAYOUT.invokeExact(desc);
            ObjectStreamClass[] layout = new ObjectStreamClass[slots.length];
            for (int i = 0; i < slots.length; i++) {
                layout[i] = (ObjectStreamClass) SLOT_DESC.invokeExact(slots[i]);
            }
            return layout;
        } catch (InvalidClassException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static int primDataSize(ObjectStreamClass desc) {
        try {
            return (int) PRIM_DATA_SIZE.invokeExact(desc);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static int objectFieldCount(ObjectStreamClass desc) {
        try {
            return (int) NUM_OBJ_FIELDS.invokeExact(desc);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** The primitive fields' values, big-endian, in the order of {@link ObjectStreamClass#getFields()}. */
    static void getPrimValues(ObjectStreamClass desc, Object obj, byte[] into) {
        try {
            GET_PRIM_VALUES.invokeExact(desc, obj, into);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void setPrimValues(ObjectStreamClass desc, Object obj, byte[] from) {
        try {
            SET_PRIM_VALUES.invokeExact(desc, obj, from);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    static void getObjValues(ObjectStreamClass desc, Object obj, Object[] into) {
        try {
            GET_OBJ_VALUES.invokeExact(desc, obj, into);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** Sets object fields, checking each value's type (a ClassCastException names the field). */
    static void setObjValues(ObjectStreamClass desc, Object obj, Object[] from) {
        try {
            SET_OBJ_VALUES.invokeExact(desc, obj, from);
        } catch (ClassCastException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** A record's canonical constructor taking (primitive values, object values), as the JDK calls it. */
    static MethodHandle recordConstructor(ObjectStreamClass desc) {
        try {
            return (MethodHandle) RECORD_CONSTRUCTOR.invokeExact(desc);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * Gives a stream that is used again for another message the filter a new stream would have:
     * the filter factory's choice for a new stream, and no stream-specific filter yet (so RMI may
     * set one again, as it does on each call's new stream).
     */
    static void resetStreamFilter(ObjectInputStream in) {
        resetStreamFilter(in, java.io.ObjectInputFilter.Config.getSerialFilterFactory()
                .apply(null, java.io.ObjectInputFilter.Config.getSerialFilter()));
    }

    /** As {@link #resetStreamFilter(ObjectInputStream)}, with {@code filter} (null: none) for the factory's choice. */
    static void resetStreamFilter(ObjectInputStream in, java.io.ObjectInputFilter filter) {
        SERIAL_FILTER.set(in, filter);
        STREAM_FILTER_SET.set(in, false);
        if (TOTAL_OBJECT_REFS != null) {
            TOTAL_OBJECT_REFS.set(in, 0L);
        }
    }

    /**
     * Tells a lean stream's JDK half that an object has been read, so that setObjectInputFilter
     * refuses a filter from now on as on a JDK stream; false where that cannot be told.
     */
    static boolean markObjectRead(ObjectInputStream in) {
        if (TOTAL_OBJECT_REFS == null) {
            return false;
        }
        if ((long) TOTAL_OBJECT_REFS.get(in) == 0) {
            TOTAL_OBJECT_REFS.set(in, 1L);
        }
        return true;
    }

    private static java.lang.invoke.VarHandle findTotalObjectRefs() {
        try {
            return MethodHandles.privateLookupIn(ObjectInputStream.class, MethodHandles.lookup())
                    .findVarHandle(ObjectInputStream.class, "totalObjectRefs", long.class);
        } catch (ReflectiveOperationException | IllegalAccessError | RuntimeException e) {
            return null;
        }
    }

    /** Sets a stream's filter field as it is, with none of setObjectInputFilter's rules (see JdkFilterModel's hooks). */
    static void swapStreamFilter(ObjectInputStream in, java.io.ObjectInputFilter filter) {
        SERIAL_FILTER.set(in, filter);
    }

    private static boolean flag(MethodHandle handle, ObjectStreamClass desc) {
        try {
            return (boolean) handle.invokeExact(desc);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** A hook's own exception passes through as the JDK would pass it; anything else is wrapped. */
    private static IOException rethrow(Throwable t) {
        if (t instanceof IOException e) {
            return e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IOException(t.toString(), t);
    }

    private static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException e) {
            return e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
