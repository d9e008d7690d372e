package io.fastrmi.optrmi.lean;

import java.io.Externalizable;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInput;
import java.io.ObjectInputStream;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamField;
import java.io.Serial;
import java.io.Serializable;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZonedDateTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.Date;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Serializable shapes the lean format must carry exactly as the JDK does: at least 60 (issue 12).
 * Also sent between real JVMs by the agent's tests (optrmi's test jar).
 */
public final class Corpus {

    public record Shape(String name, Supplier<Object> make) {
        @Override
        public String toString() {
            return name;
        }
    }

    private Corpus() {
    }

    public static List<Shape> shapes() {
        List<Shape> s = new ArrayList<>();
        s.add(new Shape("null", () -> null));
        s.add(new Shape("Integer", () -> 42));
        s.add(new Shape("Long", () -> -7L));
        s.add(new Shape("Double NaN", () -> Double.NaN));
        s.add(new Shape("Boolean", () -> Boolean.TRUE));
        s.add(new Shape("Character", () -> 'λ'));
        s.add(new Shape("Byte", () -> (byte) -1));
        s.add(new Shape("Short", () -> (short) 300));
        s.add(new Shape("Float -0.0", () -> -0.0f));
        s.add(new Shape("empty String", () -> ""));
        s.add(new Shape("Latin-1 String", () -> "héllo wörld"));
        s.add(new Shape("UTF-16 String", () -> "snow ☃, 日本語, 😀"));
        s.add(new Shape("String over 64 KiB", () -> "x".repeat(70_000) + "é"));
        s.add(new Shape("UTF-16 String over 64 KiB", () -> "日".repeat(40_000)));
        s.add(new Shape("boolean[]", () -> new boolean[] {true, false, true}));
        s.add(new Shape("byte[]", () -> new byte[] {1, -2, 127, -128}));
        s.add(new Shape("char[]", () -> "chars ☃".toCharArray()));
        s.add(new Shape("short[]", () -> new short[] {1, -1, Short.MAX_VALUE}));
        s.add(new Shape("int[]", () -> new int[] {0, -1, Integer.MIN_VALUE, 123456789}));
        s.add(new Shape("long[]", () -> new long[] {Long.MIN_VALUE, 0, 42}));
        s.add(new Shape("float[5000]", () -> floats(5000)));
        s.add(new Shape("double[131072] (1 MiB)", () -> doubles(131072)));
        s.add(new Shape("empty int[]", () -> new int[0]));
        s.add(new Shape("int[][]", () -> new int[][] {{1, 2}, {}, null, {3}}));
        s.add(new Shape("double[][][] jagged", () -> new double[][][] {{{1.5}, null}, {}, {{2, 3}, {4}}}));
        s.add(new Shape("String[]", () -> new String[] {"a", null, "b", "a"}));
        s.add(new Shape("Object[] mixed", () -> new Object[] {1, "two", 3.0, new int[] {4}, null, Color.RED}));
        s.add(new Shape("enum", () -> Color.GREEN));
        s.add(new Shape("enum with a constant body", () -> Op.MINUS));
        s.add(new Shape("EnumSet", () -> EnumSet.of(Color.RED, Color.BLUE)));
        s.add(new Shape("EnumMap", () -> new EnumMap<>(Map.of(Color.RED, "r", Color.BLUE, "b"))));
        s.add(new Shape("record", () -> new Point(3, -4)));
        s.add(new Shape("record with objects", () -> new Line(new Point(0, 0), new Point(1, 1), "diag", new int[] {7})));
        s.add(new Shape("record with null and enum", () -> new Tagged(null, Color.BLUE, 2.5)));
        s.add(new Shape("Externalizable", () -> new Ext(5, "five")));
        s.add(new Shape("Externalizable holding objects", () -> new Ext(6, new Ext(7, "inner"))));
        s.add(new Shape("writeObject with defaultWriteObject and extra data", () -> new WithExtra(9, "nine")));
        s.add(new Shape("writeObject with PutField/GetField", () -> new WithPutField(11, "eleven")));
        s.add(new Shape("writeObject without defaultWriteObject", () -> new CustomOnly(List.of(1, 2, 3))));
        s.add(new Shape("writeReplace/readResolve singleton", () -> Singleton.INSTANCE));
        s.add(new Shape("writeReplace to a proxy object", () -> new Replaced(12)));
        s.add(new Shape("serialPersistentFields", () -> new PersistentFields(1, 2)));
        s.add(new Shape("transient fields", () -> new WithTransient("kept", "dropped")));
        s.add(new Shape("non-serializable parent", () -> new Child(5, "child")));
        s.add(new Shape("three serializable levels", () -> new Level3(1, 2, 3)));
        s.add(new Shape("self cycle", Corpus::selfCycle));
        s.add(new Shape("doubly linked cycle", Corpus::ring));
        s.add(new Shape("shared references", Corpus::shared));
        s.add(new Shape("shared array", () -> {
            int[] a = {1, 2};
            return new Object[] {a, a};
        }));
        s.add(new Shape("ArrayList", () -> new ArrayList<>(List.of("a", "b", "c"))));
        s.add(new Shape("LinkedList", () -> new LinkedList<>(List.of(1, 2, 3))));
        s.add(new Shape("HashMap", () -> new HashMap<>(Map.of("one", 1, "two", 2, "three", 3))));
        s.add(new Shape("TreeMap with a comparator", () -> {
            TreeMap<String, Integer> m = new TreeMap<>(Collections.reverseOrder());
            m.put("a", 1);
            m.put("b", 2);
            return m;
        }));
        s.add(new Shape("HashSet", () -> new HashSet<>(List.of(1, 2, 3))));
        s.add(new Shape("LinkedHashMap", () -> {
            Map<String, Integer> m = new LinkedHashMap<>();
            m.put("z", 1);
            m.put("a", 2);
            return m;
        }));
        s.add(new Shape("ArrayDeque", () -> new ArrayDeque<>(List.of(4, 5))));
        s.add(new Shape("Vector", () -> new Vector<>(List.of("v"))));
        s.add(new Shape("Hashtable", () -> new Hashtable<>(Map.of("k", "v"))));
        s.add(new Shape("ConcurrentHashMap", () -> new ConcurrentHashMap<>(Map.of("c", 1))));
        s.add(new Shape("unmodifiable list", () -> Collections.unmodifiableList(new ArrayList<>(List.of(1)))));
        s.add(new Shape("List.of", () -> List.of(1, 2, 3)));
        s.add(new Shape("Map.of", () -> Map.of("a", 1)));
        s.add(new Shape("BigInteger", () -> new BigInteger("123456789012345678901234567890")));
        s.add(new Shape("BigDecimal", () -> new BigDecimal("-3.14159265358979323846")));
        s.add(new Shape("Date", () -> new Date(1_700_000_000_000L)));
        s.add(new Shape("LocalDateTime", () -> LocalDateTime.of(2026, 11, 25, 13, 0)));
        s.add(new Shape("ZonedDateTime", () -> ZonedDateTime.of(LocalDateTime.of(2026, 1, 1, 0, 0), java.time.ZoneId.of("Europe/Berlin"))));
        s.add(new Shape("Instant and Duration", () -> new Object[] {Instant.ofEpochSecond(5), Duration.ofMillis(1500)}));
        s.add(new Shape("UUID", () -> new UUID(1, 2)));
        s.add(new Shape("URI", () -> URI.create("http://example.org/a?b")));
        s.add(new Shape("BitSet", () -> BitSet.valueOf(new long[] {0b1011})));
        s.add(new Shape("StringBuilder", () -> new StringBuilder("builder")));
        s.add(new Shape("AtomicLong", () -> new AtomicLong(99)));
        s.add(new Shape("exception with a cause", () -> new IllegalStateException("outer", new IOException("inner"))));
        s.add(new Shape("custom exception with fields", () -> new CodedException(404, "not found")));
        s.add(new Shape("proxy", () -> Proxy.newProxyInstance(Corpus.class.getClassLoader(),
                new Class<?>[] {Greeter.class}, new FixedAnswer("hello"))));
        s.add(new Shape("class objects", () -> new Object[] {String.class, int.class, int[].class, Runnable.class, Color.class}));
        s.add(new Shape("32 int (KaRMI)", () -> new Int32()));
        s.add(new Shape("4 int + 2 null (KaRMI)", () -> new Int4Null2()));
        s.add(new Shape("tree of 15 (KaRMI)", () -> Tree.of(15)));
        s.add(new Shape("3 KB object with several fields", Corpus::order));
        s.add(new Shape("readObject validation", () -> new Validated(3)));
        s.add(new Shape("unshared writes", () -> new UnsharedHolder(new int[] {1, 2})));
        return s;
    }

    /** An object's bytes under JDK serialization. */
    public static byte[] jdkBytes(Object obj) throws IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(obj);
        }
        return bytes.toByteArray();
    }

    /** What JDK serialization reads back of an object. */
    public static Object jdkRoundTrip(Object obj) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new java.io.ByteArrayInputStream(jdkBytes(obj)))) {
            return in.readObject();
        }
    }

    public static float[] floats(int n) {
        float[] f = new float[n];
        for (int i = 0; i < n; i++) {
            f[i] = i * 0.5f - 3;
        }
        return f;
    }

    static double[] doubles(int n) {
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = Math.sqrt(i);
        }
        return d;
    }

    static Node selfCycle() {
        Node n = new Node("self");
        n.next = n;
        return n;
    }

    static Node ring() {
        Node a = new Node("a");
        Node b = new Node("b");
        Node c = new Node("c");
        a.next = b;
        b.next = c;
        c.next = a;
        a.prev = c;
        b.prev = a;
        c.prev = b;
        return a;
    }

    static Object shared() {
        Point p = new Point(1, 2);
        List<Object> list = new ArrayList<>();
        list.add(p);
        list.add(p);
        String text = new String("shared text");
        list.add(text);
        list.add(text);
        return list;
    }

    public static Order order() {
        Order o = new Order();
        o.id = 123456;
        o.customer = "ACME Corporation, Building 7";
        o.created = new Date(1_700_000_000_000L);
        o.lines = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            o.lines.add(new OrderLine("SKU-" + i, "item number " + i + " of the order", i + 1, 9.99 * i));
        }
        o.notes = "deliver before noon ".repeat(20);
        o.priority = Color.RED;
        return o;
    }

    public enum Color { RED, GREEN, BLUE }

    enum Op {
        PLUS {
            @Override
            int apply(int a, int b) {
                return a + b;
            }
        },
        MINUS {
            @Override
            int apply(int a, int b) {
                return a - b;
            }
        };

        abstract int apply(int a, int b);
    }

    public record Point(int x, int y) implements Serializable {
    }

    record Line(Point from, Point to, String label, int[] weights) implements Serializable {
    }

    record Tagged(String tag, Color color, double weight) implements Serializable {
    }

    public static final class Ext implements Externalizable {
        int n;
        Object payload;

        public Ext() {
        }

        Ext(int n, Object payload) {
            this.n = n;
            this.payload = payload;
        }

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            out.writeInt(n);
            out.writeObject(payload);
            out.writeUTF("tail");
        }

        @Override
        public void readExternal(ObjectInput in) throws IOException, ClassNotFoundException {
            n = in.readInt();
            payload = in.readObject();
            if (!in.readUTF().equals("tail")) {
                throw new InvalidObjectException("bad tail");
            }
        }
    }

    static final class WithExtra implements Serializable {
        private static final long serialVersionUID = 1L;
        int n;
        String s;
        transient String extra;

        WithExtra(int n, String s) {
            this.n = n;
            this.s = s;
            this.extra = s + "!";
        }

        @Serial
        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeObject(extra);
            out.writeDouble(2.5);
        }

        @Serial
        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            extra = (String) in.readObject();
            if (in.readDouble() != 2.5) {
                throw new InvalidObjectException("bad double");
            }
        }
    }

    static final class WithPutField implements Serializable {
        private static final long serialVersionUID = 1L;
        private static final ObjectStreamField[] serialPersistentFields = {
            new ObjectStreamField("count", int.class), new ObjectStreamField("label", String.class)};
        transient int n;
        transient String text;

        WithPutField(int n, String text) {
            this.n = n;
            this.text = text;
        }

        @Serial
        private void writeObject(ObjectOutputStream out) throws IOException {
            ObjectOutputStream.PutField fields = out.putFields();
            fields.put("count", n);
            fields.put("label", text);
            out.writeFields();
        }

        @Serial
        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            ObjectInputStream.GetField fields = in.readFields();
            n = fields.get("count", -1);
            text = (String) fields.get("label", null);
        }
    }

    static final class CustomOnly implements Serializable {
        private static final long serialVersionUID = 1L;
        transient List<Integer> values;

        CustomOnly(List<Integer> values) {
            this.values = values;
        }

        @Serial
        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeInt(values.size());
            for (int v : values) {
                out.writeInt(v);
            }
        }

        @Serial
        private void readObject(ObjectInputStream in) throws IOException {
            int n = in.readInt();
            values = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                values.add(in.readInt());
            }
        }
    }

    static final class Singleton implements Serializable {
        private static final long serialVersionUID = 1L;
        static final Singleton INSTANCE = new Singleton();

        @Serial
        private Object readResolve() {
            return INSTANCE;
        }
    }

    static final class Replaced implements Serializable {
        private static final long serialVersionUID = 1L;
        final int n;

        Replaced(int n) {
            this.n = n;
        }

        @Serial
        private Object writeReplace() {
            return new ReplacedForm(n);
        }
    }

    static final class ReplacedForm implements Serializable {
        private static final long serialVersionUID = 1L;
        final int n;

        ReplacedForm(int n) {
            this.n = n;
        }

        @Serial
        private Object readResolve() {
            return new Replaced(n);
        }
    }

    static final class PersistentFields implements Serializable {
        private static final long serialVersionUID = 1L;
        private static final ObjectStreamField[] serialPersistentFields = {new ObjectStreamField("a", int.class)};
        int a;
        int b;

        PersistentFields(int a, int b) {
            this.a = a;
            this.b = b;
        }
    }

    static final class WithTransient implements Serializable {
        private static final long serialVersionUID = 1L;
        String kept;
        transient String dropped;

        WithTransient(String kept, String dropped) {
            this.kept = kept;
            this.dropped = dropped;
        }
    }

    static class Parent {
        int parentField;
        String made;

        Parent() {
            parentField = 77;
            made = "by the no-arg constructor";
        }
    }

    static final class Child extends Parent implements Serializable {
        private static final long serialVersionUID = 1L;
        int n;
        String s;

        Child(int n, String s) {
            this.n = n;
            this.s = s;
            this.parentField = -1;
        }
    }

    static class Level1 implements Serializable {
        private static final long serialVersionUID = 1L;
        int a;
    }

    static class Level2 extends Level1 {
        private static final long serialVersionUID = 1L;
        int b;

        @Serial
        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeInt(b * 10);
        }

        @Serial
        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            if (in.readInt() != b * 10) {
                throw new InvalidObjectException("level 2");
            }
        }
    }

    static final class Level3 extends Level2 {
        private static final long serialVersionUID = 1L;
        int c;

        Level3(int a, int b, int c) {
            this.a = a;
            this.b = b;
            this.c = c;
        }
    }

    static final class Node implements Serializable {
        private static final long serialVersionUID = 1L;
        String name;
        Node next;
        Node prev;

        Node(String name) {
            this.name = name;
        }
    }

    interface Greeter {
        String greet();
    }

    static final class FixedAnswer implements InvocationHandler, Serializable {
        private static final long serialVersionUID = 1L;
        final String answer;

        FixedAnswer(String answer) {
            this.answer = answer;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            return answer;
        }
    }

    static final class CodedException extends Exception {
        private static final long serialVersionUID = 1L;
        final int code;

        CodedException(int code, String message) {
            super(message);
            this.code = code;
        }
    }

    public static final class Int32 implements Serializable {
        private static final long serialVersionUID = 1L;
        int i0 = 0, i1 = 1, i2 = 2, i3 = 3, i4 = 4, i5 = 5, i6 = 6, i7 = 7, i8 = 8, i9 = 9, i10 = 10, i11 = 11, i12 = 12,
                i13 = 13, i14 = 14, i15 = 15, i16 = 16, i17 = 17, i18 = 18, i19 = 19, i20 = 20, i21 = 21, i22 = 22, i23 = 23,
                i24 = 24, i25 = 25, i26 = 26, i27 = 27, i28 = 28, i29 = 29, i30 = 30, i31 = 31;
    }

    public static final class Int4Null2 implements Serializable {
        private static final long serialVersionUID = 1L;
        int a = 1, b = 2, c = 3, d = 4;
        Object e = null, f = null;
    }

    public static final class Tree implements Serializable {
        private static final long serialVersionUID = 1L;
        Tree left;
        Tree right;

        public static Tree of(int nodes) {
            if (nodes <= 0) {
                return null;
            }
            Tree t = new Tree();
            int rest = nodes - 1;
            t.left = of(rest / 2);
            t.right = of(rest - rest / 2);
            return t;
        }
    }

    public static final class Order implements Serializable {
        private static final long serialVersionUID = 1L;
        long id;
        String customer;
        Date created;
        List<OrderLine> lines;
        String notes;
        Color priority;
    }

    public record OrderLine(String sku, String description, int quantity, double price) implements Serializable {
    }

    static final class Validated implements Serializable, java.io.ObjectInputValidation {
        private static final long serialVersionUID = 1L;
        int n;
        transient boolean validated;

        Validated(int n) {
            this.n = n;
        }

        @Serial
        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.registerValidation(this, 0);
            in.defaultReadObject();
        }

        @Override
        public void validateObject() throws InvalidObjectException {
            if (n < 0) {
                throw new InvalidObjectException("negative");
            }
            validated = true;
        }
    }

    static final class UnsharedHolder implements Serializable {
        private static final long serialVersionUID = 1L;
        transient int[] data;

        UnsharedHolder(int[] data) {
            this.data = data;
        }

        @Serial
        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeUnshared(data);
        }

        @Serial
        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            data = (int[]) in.readUnshared();
        }
    }
}
