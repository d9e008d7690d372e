package io.fastrmi.optrmi.lean;

import java.io.Externalizable;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.io.Serializable;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Proxy;
import java.util.Arrays;

/**
 * What the lean format knows of one local class, worked out once per class (a {@link ClassValue}):
 * its kind, its serializable hierarchy with each class's fields and hooks (from the JDK's own
 * {@link ObjectStreamClass}), and the descriptor that crosses a connection the first time the class
 * does. {@link #check} compares a peer's descriptor with it.
 */
final class LeanClass {

    /** One serializable class of a hierarchy, as its data is laid out. */
    static final class Slot {
        final ObjectStreamClass desc;
        final ObjectStreamField[] fields;
        final boolean writeObject;
        final boolean readObject;
        final int primDataSize;
        final int objectFields;
        /** "I count;Ljava/lang/String; name;" — what must match on both ends. */
        final String layout;
        /** Each primitive field's type code and offset in the JDK's big-endian field bytes. */
        final char[] primCodes;
        final int[] primOffsets;
        /** True when some int or long field is sent as a varint rather than as its bytes. */
        final boolean compact;
        /** Whether each object field (in field order, after the primitive ones) is unshared. */
        final boolean[] objectUnshared;
        /** Each field's offset for {@link DirectFields}, in field order; null: the JDK's field reflector is used. */
        final long[] offsets;
        /** Each object field's declared type, checked before a value read off the wire is set. */
        final Class<?>[] objectTypes;
        /**
         * Whether the JDK refuses to write this class's fields by default (serialPersistentFields
         * naming a field it lacks): its answer is the class's, asked once; the writer asks again to throw it.
         */
        final boolean defaultWriteRefused;

        Slot(ObjectStreamClass desc, boolean direct) {
            this.desc = desc;
            this.fields = desc.getFields();
            this.writeObject = JdkSerialClasses.hasWriteObject(desc);
            this.readObject = JdkSerialClasses.hasReadObject(desc);
            this.primDataSize = JdkSerialClasses.primDataSize(desc);
            this.objectFields = JdkSerialClasses.objectFieldCount(desc);
            this.layout = layoutOf(fields);
            int prims = fields.length - objectFields;
            this.primCodes = new char[prims];
            this.primOffsets = new int[prims];
            boolean anyCompact = false;
            for (int i = 0; i < prims; i++) {
                primCodes[i] = fields[i].getTypeCode();
                primOffsets[i] = fields[i].getOffset();
                anyCompact |= primCodes[i] == 'I' || primCodes[i] == 'J';
            }
            this.compact = anyCompact;
            this.objectUnshared = new boolean[objectFields];
            this.objectTypes = new Class<?>[objectFields];
            for (int i = 0; i < objectFields; i++) {
                objectUnshared[i] = fields[prims + i].isUnshared();
                objectTypes[i] = fields[prims + i].getType();
            }
            this.offsets = direct ? DirectFields.offsets(desc, fields) : null;
            this.defaultWriteRefused = refusesDefaultWrite(desc);
        }

        private static boolean refusesDefaultWrite(ObjectStreamClass desc) {
            try {
                JdkSerialClasses.checkDefaultSerialize(desc);
                return false;
            } catch (InvalidClassException e) {
                return true;
            }
        }

        ObjectStreamField field(String name, Class<?> type) {
            for (ObjectStreamField f : fields) {
                if (f.getName().equals(name) && (type == null || f.getType() == type
                        || !f.isPrimitive() && type == Object.class)) {
                    return f;
                }
            }
            return null;
        }
    }

    private static final ClassValue<LeanClass> CLASSES = new ClassValue<>() {
        @Override
        protected LeanClass computeValue(Class<?> type) {
            return new LeanClass(type);
        }
    };

    private static final java.util.concurrent.atomic.AtomicInteger INDEXES = new java.util.concurrent.atomic.AtomicInteger();

    /** A number of this class's own in this JVM, so a writer's class table is an array. */
    final int index = INDEXES.getAndIncrement();
    final Class<?> type;
    final byte kind;
    /** The JDK's descriptor (lookupAny: also for classes that are not serializable). */
    final ObjectStreamClass desc;
    /** The serializable hierarchy, topmost first (serializable, record and proxy kinds). */
    final Slot[] slots;
    final Object[] enumConstants;
    final Class<?> component;
    final boolean writeReplace;
    final boolean readResolve;
    /** Why instances cannot be laid out (an invalid serialPersistentFields, ...), or null. */
    final InvalidClassException invalid;
    /** Deserialization's constructor call would run only {@code Object}'s: allocation alone makes the instance. */
    private final boolean allocatedPlainly;
    private volatile MethodHandle recordConstructor;

    private LeanClass(Class<?> type) {
        this.type = type;
        this.kind = kindOf(type);
        this.desc = type.isPrimitive() ? null : JdkSerialClasses.lookup(type);
        this.component = type.getComponentType();
        this.enumConstants = kind == LeanFormat.KIND_ENUM ? type.getEnumConstants() : null;
        boolean serial = kind == LeanFormat.KIND_SERIAL || kind == LeanFormat.KIND_RECORD || kind == LeanFormat.KIND_PROXY;
        boolean hooks = desc != null && (serial || kind == LeanFormat.KIND_EXTERNAL);
        this.writeReplace = hooks && JdkSerialClasses.hasWriteReplace(desc);
        this.readResolve = hooks && JdkSerialClasses.hasReadResolve(desc);
        Slot[] layout = new Slot[0];
        InvalidClassException problem = null;
        if (serial) {
            try {
                ObjectStreamClass[] descs = kind == LeanFormat.KIND_RECORD ? new ObjectStreamClass[] {desc}
                        : JdkSerialClasses.dataLayout(desc);
                layout = new Slot[descs.length];
                for (int i = 0; i < descs.length; i++) {
                    // A record's fields are read directly too; it is still made by its canonical constructor.
                    layout[i] = new Slot(descs[i], kind == LeanFormat.KIND_SERIAL || kind == LeanFormat.KIND_RECORD);
                }
            } catch (InvalidClassException e) {
                problem = e;
            }
        }
        this.slots = layout;
        this.invalid = problem;
        this.allocatedPlainly = kind == LeanFormat.KIND_SERIAL && problem == null && JdkSerialClasses.canAllocate()
                && firstNonSerializableParent(type) == Object.class && !hasFinalizer(type);
    }

    /** A new instance as deserialization makes it (see {@link JdkSerialClasses#newInstance}). */
    Object newInstance() throws java.io.IOException {
        return allocatedPlainly ? JdkSerialClasses.allocate(type) : JdkSerialClasses.newInstance(desc);
    }

    private static Class<?> firstNonSerializableParent(Class<?> type) {
        Class<?> c = type;
        while (c != null && java.io.Serializable.class.isAssignableFrom(c)) {
            c = c.getSuperclass();
        }
        return c;
    }

    /** A finalizer is registered by Object's constructor, which allocation alone would skip. */
    private static boolean hasFinalizer(Class<?> type) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            try {
                c.getDeclaredMethod("finalize");
                return true;
            } catch (NoSuchMethodException e) {
                // not declared here: look further up
            } catch (RuntimeException | LinkageError e) {
                return true; // cannot tell: take the JDK's way
            }
        }
        return false;
    }

    /** Set once the JDK's check passed; until then (and for a refused class, every time) it is asked. */
    private volatile boolean serializeChecked;
    private volatile boolean deserializeChecked;

    /** The JDK's {@code checkSerialize}, asked once: its answer is the class's, not the object's. */
    void checkSerialize() throws InvalidClassException {
        if (!serializeChecked) {
            JdkSerialClasses.checkSerialize(desc);
            serializeChecked = true;
        }
    }

    /** The JDK's {@code checkDeserialize}, asked once. */
    void checkDeserialize() throws InvalidClassException {
        if (!deserializeChecked) {
            JdkSerialClasses.checkDeserialize(desc);
            deserializeChecked = true;
        }
    }

    static LeanClass of(Class<?> type) {
        return CLASSES.get(type);
    }

    static byte kindOf(Class<?> type) {
        if (type.isPrimitive()) {
            return LeanFormat.KIND_PRIMITIVE;
        }
        if (type.isArray()) {
            return LeanFormat.KIND_ARRAY;
        }
        if (type.isEnum()) {
            return LeanFormat.KIND_ENUM;
        }
        if (!Serializable.class.isAssignableFrom(type)) {
            return LeanFormat.KIND_PLAIN;
        }
        if (Proxy.isProxyClass(type)) {
            return LeanFormat.KIND_PROXY;
        }
        if (Externalizable.class.isAssignableFrom(type)) {
            return LeanFormat.KIND_EXTERNAL;
        }
        if (type.isRecord()) {
            return LeanFormat.KIND_RECORD;
        }
        return LeanFormat.KIND_SERIAL;
    }

    boolean hasSlots() {
        return kind == LeanFormat.KIND_SERIAL || kind == LeanFormat.KIND_RECORD || kind == LeanFormat.KIND_PROXY;
    }

    MethodHandle recordConstructor() {
        MethodHandle ctor = recordConstructor;
        if (ctor == null) {
            recordConstructor = ctor = JdkSerialClasses.recordConstructor(desc);
        }
        return ctor;
    }

    /** The descriptor the first crossing of this class carries (see {@link LeanFormat}). */
    void writeDescriptor(OutBuffer out, String annotation) throws IOException {
        out.writeByte(kind);
        if (kind == LeanFormat.KIND_PROXY) {
            Class<?>[] interfaces = type.getInterfaces();
            out.writeVarint(interfaces.length);
            for (Class<?> i : interfaces) {
                out.writeString(i.getName());
            }
        } else {
            out.writeString(type.getName());
        }
        if (annotation == null) {
            out.writeByte(0);
        } else {
            out.writeByte(1);
            out.writeString(annotation);
        }
        if (kind == LeanFormat.KIND_ENUM) {
            out.writeVarint(enumConstants.length);
            for (Object constant : enumConstants) {
                out.writeString(((Enum<?>) constant).name());
            }
        } else if (hasSlots() || kind == LeanFormat.KIND_EXTERNAL) {
            if (invalid != null) {
                throw invalid;
            }
            out.writeLong(desc.getSerialVersionUID());
            out.writeVarint(slots.length);
            for (int i = 0; i < slots.length; i++) {
                Slot slot = slots[i];
                // The last one is the class itself, named already.
                out.writeString(i == slots.length - 1 ? "" : slot.desc.getName());
                out.writeLong(slot.desc.getSerialVersionUID());
                out.writeByte(slot.writeObject ? 1 : 0);
                out.writeString(slot.layout);
            }
        }
    }

    /**
     * A descriptor as a peer sent it, before it is matched with a local class. Descriptors name
     * classes only; nothing in one is acted on before {@link #check} accepts it (a codebase
     * annotation is used only as the JDK's RMI would use it: not at all while
     * {@code java.rmi.server.useCodebaseOnly} is true, its default).
     */
    static final class Sent {
        byte kind;
        String name;
        String annotation;
        String[] interfaces;
        String[] constants;
        long serialVersionUID;
        String[] slotNames;
        long[] slotUids;
        boolean[] slotWriteObject;
        String[] slotLayouts;

        static Sent read(InBuffer in) throws IOException {
            Sent sent = new Sent();
            sent.kind = (byte) in.readByte();
            if (sent.kind < LeanFormat.KIND_SERIAL || sent.kind > LeanFormat.KIND_PRIMITIVE) {
                throw new java.io.StreamCorruptedException("lean stream: a class descriptor of unknown kind " + sent.kind);
            }
            if (sent.kind == LeanFormat.KIND_PROXY) {
                int count = count(in, LeanFormat.MAX_PROXY_INTERFACES, "proxy interfaces");
                sent.interfaces = new String[count];
                for (int i = 0; i < count; i++) {
                    sent.interfaces[i] = in.readString(LeanFormat.MAX_NAME_CHARS);
                }
                sent.name = "proxy" + Arrays.toString(sent.interfaces);
            } else {
                sent.name = in.readString(LeanFormat.MAX_NAME_CHARS);
            }
            int annotated = in.readByte();
            if (annotated == 1) {
                sent.annotation = in.readString(4 * LeanFormat.MAX_NAME_CHARS);
            } else if (annotated != 0) {
                throw new java.io.StreamCorruptedException("lean stream: a class descriptor's annotation flag is " + annotated);
            }
            if (sent.kind == LeanFormat.KIND_ENUM) {
                int count = count(in, LeanFormat.MAX_DESCRIPTOR_ENTRIES, "enum constants");
                sent.constants = new String[count];
                for (int i = 0; i < count; i++) {
                    sent.constants[i] = in.readString(LeanFormat.MAX_NAME_CHARS);
                }
            } else if (sent.kind == LeanFormat.KIND_SERIAL || sent.kind == LeanFormat.KIND_RECORD
                    || sent.kind == LeanFormat.KIND_PROXY || sent.kind == LeanFormat.KIND_EXTERNAL) {
                sent.serialVersionUID = in.readLong();
                int count = count(in, LeanFormat.MAX_DESCRIPTOR_ENTRIES, "serializable classes");
                sent.slotNames = new String[count];
                sent.slotUids = new long[count];
                sent.slotWriteObject = new boolean[count];
                sent.slotLayouts = new String[count];
                for (int i = 0; i < count; i++) {
                    String slotName = in.readString(LeanFormat.MAX_NAME_CHARS);
                    sent.slotNames[i] = i == count - 1 && slotName.isEmpty() ? sent.name : slotName;
                    sent.slotUids[i] = in.readLong();
                    int flag = in.readByte();
                    if (flag != 0 && flag != 1) {
                        throw new java.io.StreamCorruptedException("lean stream: a class descriptor's writeObject flag is " + flag);
                    }
                    sent.slotWriteObject[i] = flag == 1;
                    sent.slotLayouts[i] = in.readString(4 * LeanFormat.MAX_NAME_CHARS);
                }
            }
            return sent;
        }

        private static int count(InBuffer in, int max, String what) throws IOException {
            int count = in.readVarint();
            if (count > max) {
                throw new java.io.StreamCorruptedException("lean stream: a class descriptor lists " + count + " " + what + " (at most " + max + ")");
            }
            return count;
        }
    }

    /**
     * Checks a peer's descriptor against this class: kind, serialVersionUID and every serializable
     * class's fields must match (the lean format assumes one classpath; a difference is an
     * {@link InvalidClassException} naming the class and what differs, never a silent evolution).
     */
    void check(Sent sent) throws InvalidClassException {
        if (sent.kind != kind) {
            throw new InvalidClassException(sent.name, "sent as " + LeanFormat.kindName(sent.kind) + ", "
                    + LeanFormat.kindName(kind) + " here");
        }
        if (kind == LeanFormat.KIND_ENUM) {
            String[] local = new String[enumConstants.length];
            for (int i = 0; i < local.length; i++) {
                local[i] = ((Enum<?>) enumConstants[i]).name();
            }
            if (!Arrays.equals(local, sent.constants)) {
                throw new InvalidClassException(sent.name, "enum constants differ: sent " + Arrays.toString(sent.constants)
                        + ", here " + Arrays.toString(local));
            }
            return;
        }
        if (!hasSlots() && kind != LeanFormat.KIND_EXTERNAL) {
            return;
        }
        if (invalid != null) {
            throw invalid;
        }
        if (kind != LeanFormat.KIND_RECORD && kind != LeanFormat.KIND_PROXY && sent.serialVersionUID != desc.getSerialVersionUID()) {
            throw new InvalidClassException(sent.name, "serialVersionUID differs: sent " + sent.serialVersionUID
                    + ", here " + desc.getSerialVersionUID());
        }
        if (sent.slotNames.length != slots.length) {
            throw new InvalidClassException(sent.name, "serializable superclasses differ: sent "
                    + Arrays.toString(sent.slotNames) + ", here " + Arrays.toString(slotNames()));
        }
        for (int i = 0; i < slots.length; i++) {
            Slot slot = slots[i];
            // The last is the class itself, matched by resolving its name (a proxy's own name is local).
            if (i < slots.length - 1 && !slot.desc.getName().equals(sent.slotNames[i])) {
                throw new InvalidClassException(sent.name, "serializable superclasses differ: sent "
                        + Arrays.toString(sent.slotNames) + ", here " + Arrays.toString(slotNames()));
            }
            if (i < slots.length - 1 && sent.slotUids[i] != slot.desc.getSerialVersionUID()) {
                throw new InvalidClassException(sent.name, "serialVersionUID of its superclass " + sent.slotNames[i]
                        + " differs: sent " + sent.slotUids[i] + ", here " + slot.desc.getSerialVersionUID());
            }
            if (!slot.layout.equals(sent.slotLayouts[i])) {
                throw new InvalidClassException(sent.name, "serializable fields of " + sent.slotNames[i] + " differ: sent ["
                        + sent.slotLayouts[i] + "], here [" + slot.layout + "]");
            }
        }
    }

    private String[] slotNames() {
        String[] names = new String[slots.length];
        for (int i = 0; i < slots.length; i++) {
            names[i] = slots[i].desc.getName();
        }
        return names;
    }

    private static String layoutOf(ObjectStreamField[] fields) {
        StringBuilder text = new StringBuilder();
        for (ObjectStreamField f : fields) {
            text.append(f.getTypeCode());
            if (!f.isPrimitive()) {
                text.append(f.getTypeString());
            }
            text.append(' ').append(f.getName()).append(f.isUnshared() ? " unshared" : "").append(';');
        }
        return text.toString();
    }
}
