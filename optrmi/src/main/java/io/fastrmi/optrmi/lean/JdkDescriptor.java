package io.fastrmi.optrmi.lean;

import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.lang.reflect.Proxy;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The class descriptor JDK serialization would send for a local class (what
 * {@code ObjectOutputStream.writeClassDesc} writes): its sizes, its fields' type strings and the
 * serializable superclass whose descriptor follows it. {@link JdkFilterModel} replays reading it, so
 * a serial filter sees the lean format's objects as it would see the JDK's. Made from local classes
 * only, never from what a peer sends, and kept once per class.
 */
final class JdkDescriptor {

    private static final ClassValue<JdkDescriptor> DESCRIPTORS = new ClassValue<>() {
        @Override
        protected JdkDescriptor computeValue(Class<?> type) {
            return new JdkDescriptor(type);
        }
    };

    private static final AtomicInteger IDS = new AtomicInteger();
    /** Field type strings by number: the JDK shares an interned string by back reference within a stream. */
    private static final ConcurrentHashMap<String, Integer> SIGNATURES = new ConcurrentHashMap<>();
    private static final AtomicInteger SIGNATURE_IDS = new AtomicInteger();
    /** A class, not a lambda: a lambda costs the JVM a class spun at its first use (StartupIT). */
    private static final Function<String, Integer> NEXT_SIGNATURE_ID = new Function<>() {
        @Override
        public Integer apply(String signature) {
            return SIGNATURE_IDS.getAndIncrement();
        }
    };

    /** A number of this descriptor's own, so a reader's per-message table of descriptors read is an array. */
    final int id = IDS.getAndIncrement();
    final Class<?> type;
    final boolean proxy;
    /**
     * Bytes up to the fields: TC_CLASSDESC, the name, serialVersionUID, flags and field count; for a
     * proxy, TC_PROXYCLASSDESC, the interface count and names.
     */
    final int headBytes;
    /** Bytes of the head and every field's type code and name: all but the object fields' type strings. */
    final int plainBytes;
    /** Per object field, the bytes from the head's end to its type string (type strings before it not counted). */
    final int[] typeStringAt;
    /** Per object field, its type string's number. */
    final int[] signatures;
    /** Per object field, its type string written anew (TC_STRING, length, characters). */
    final int[] signatureBytes;
    /** A proxy's interfaces, asked of the filter before the proxy class. */
    final Class<?>[] interfaces;
    /** The serializable superclass's descriptor, or null (TC_NULL). */
    final JdkDescriptor superDescriptor;
    /** A {@code java.*} class: the lean format sends no codebase annotation for it. */
    final boolean javaClass;

    private JdkDescriptor(Class<?> type) {
        this.type = type;
        this.proxy = Proxy.isProxyClass(type);
        this.javaClass = type.getName().startsWith("java.");
        ObjectStreamField[] fields = type.isPrimitive() || proxy ? new ObjectStreamField[0]
                : ObjectStreamClass.lookupAny(type).getFields();
        int objects = 0;
        for (ObjectStreamField f : fields) {
            objects += f.isPrimitive() ? 0 : 1;
        }
        this.typeStringAt = new int[objects];
        this.signatures = new int[objects];
        this.signatureBytes = new int[objects];
        int at = 0;
        int k = 0;
        for (ObjectStreamField f : fields) {
            at += 1 + 2 + utf(f.getName());
            String signature = f.getTypeString();
            if (signature != null) {
                typeStringAt[k] = at;
                signatures[k] = SIGNATURES.computeIfAbsent(signature, NEXT_SIGNATURE_ID);
                signatureBytes[k] = 1 + 2 + utf(signature);
                k++;
            }
        }
        int fieldsBytes = at;
        if (proxy) {
            this.interfaces = type.getInterfaces();
            int head = 1 + 4;
            for (Class<?> i : interfaces) {
                head += 2 + utf(i.getName());
            }
            this.headBytes = head;
            this.plainBytes = head;
            this.superDescriptor = of(Proxy.class);
        } else {
            this.interfaces = null;
            this.headBytes = 1 + 2 + utf(type.getName()) + 8 + 1 + 2;
            this.plainBytes = headBytes + fieldsBytes;
            Class<?> parent = type.getSuperclass();
            this.superDescriptor = parent != null && ObjectStreamClass.lookup(parent) != null ? of(parent) : null;
        }
    }

    static JdkDescriptor of(Class<?> type) {
        return DESCRIPTORS.get(type);
    }

    /** How many field type strings are numbered so far (a reader's table grows to it). */
    static int signatureCount() {
        return SIGNATURE_IDS.get();
    }

    /** The length of a string in modified UTF-8, as writeUTF and TC_STRING write it. */
    static long utfLength(String s) {
        long length = s.length();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x80 || c == 0) {
                length += c >= 0x800 ? 2 : 1;
            }
        }
        return length;
    }

    private static int utf(String s) {
        return (int) utfLength(s);
    }
}
