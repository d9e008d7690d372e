package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Externalizable;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInput;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * JEP 290 on the lean path, against JDK serialization of the same objects: a filter that records
 * every question it is asked sees the same questions — the same class, array length, depth,
 * reference count and stream bytes, in the same order — from a lean message as from the JDK's
 * stream, for the corpus and for random graphs (shared objects, cycles, arrays, records, enums,
 * proxies, class hierarchies, writeObject and Externalizable data, readResolve, hooks that throw), and
 * the read ends the same way (read, or the same exception); on a plain stream
 * and on one that reads a codebase annotation with each class as RMI's does. So every filter,
 * its limits included, decides as it does without the lean format. Each limit is also crossed by one
 * both ways, at the value the JDK's stream reaches (never a number written here).
 */
class FilterDifferentialTest {

    /** The codebase of the annotating streams: one instance, as RMI's codebase property is. */
    static final String CODEBASE = "file:/codebase/";

    @Test
    void everyFilterQuestionOfTheCorpusIsTheJdks() throws Exception {
        int questions = 0;
        for (boolean annotated : new boolean[] {false, true}) {
            for (Corpus.Shape shape : Corpus.shapes()) {
                Object obj = shape.make().get();
                List<String> jdk = jdkQuestions(annotated, obj);
                List<String> lean = leanQuestions(annotated, obj);
                assertEquals(String.join("\n", jdk), String.join("\n", lean),
                        shape + (annotated ? " (annotated)" : "") + ": the filter's questions");
                questions += jdk.size();
            }
        }
        assertTrue(questions > 200, "the corpus asked the filter " + questions + " questions");
    }

    @Test
    void everyFilterQuestionOfRandomGraphsIsTheJdks() throws Exception {
        long seed = Long.getLong("lean.filter.seed", System.nanoTime());
        int graphs = Integer.getInteger("lean.filter.graphs", 400);
        Random random = new Random(seed);
        for (int g = 0; g < graphs; g++) {
            boolean annotated = random.nextBoolean();
            Object[] message = new Graphs(random).message();
            List<String> jdk = jdkQuestions(annotated, message);
            List<String> lean = leanQuestions(annotated, message);
            assertEquals(String.join("\n", jdk), String.join("\n", lean),
                    "graph " + g + " of seed " + seed + (annotated ? " (annotated)" : "") + ": the filter's questions");
        }
    }

    @Test
    void everyLimitCrossedByOneDecidesAsTheJdk() throws Exception {
        Random random = new Random(7);
        List<Object[]> messages = new ArrayList<>();
        for (Corpus.Shape shape : Corpus.shapes()) {
            messages.add(new Object[] {shape.make().get()});
        }
        for (int i = 0; i < 40; i++) {
            messages.add(new Graphs(random).message());
        }
        int crossings = 0;
        for (Object[] message : messages) {
            Limits reached;
            try {
                reached = Limits.of(jdkQuestionsRaw(false, message));
            } catch (IllegalStateException refusedByItsClass) {
                continue; // a graph whose class refuses it has no limit to cross
            }
            for (String limit : reached.filters()) {
                for (boolean annotated : new boolean[] {false, true}) {
                    String jdk = jdkDecision(annotated, message, limit);
                    String lean = leanDecision(annotated, message, limit);
                    assertEquals(jdk, lean, limit + " on " + describe(message));
                }
                crossings++;
            }
        }
        assertTrue(crossings > 100, crossings + " limits crossed");
    }

    /** One limit exactly at the value reached passes, one below it is refused, by the JDK (computed, not assumed). */
    @Test
    void aLimitAtTheValueReachedPassesAndOneBelowIsRefused() throws Exception {
        Object[] message = {Corpus.Tree.of(15), new int[300], "x"};
        Limits reached = Limits.of(jdkQuestionsRaw(false, message));
        for (String[] pair : reached.pairs()) {
            assertEquals("accepted", jdkDecision(false, message, pair[0]), pair[0]);
            assertTrue(jdkDecision(false, message, pair[1]).startsWith("filter status: REJECTED"), pair[1]);
            assertEquals("accepted", leanDecision(false, message, pair[0]), pair[0]);
            assertTrue(leanDecision(false, message, pair[1]).startsWith("filter status: REJECTED"), pair[1]);
        }
    }

    /** As on a JDK stream, a filter cannot be set once an object has been read (so none can miss the objects read before). */
    @Test
    void aFilterSetAfterAnObjectIsRefusedAsOnAJdkStream() throws Exception {
        Object[] message = {"first", 2};
        ObjectInputFilter filter = ObjectInputFilter.Config.createFilter("maxdepth=5");
        ObjectInputStream jdk = jdkInput(false, message);
        ObjectInputStream lean = leanInput(false, message);
        String[] outcomes = new String[2];
        int i = 0;
        for (ObjectInputStream in : List.of(jdk, lean)) {
            in.readLong();
            in.readInt();
            in.readObject();
            try {
                in.setObjectInputFilter(filter);
                outcomes[i++] = "set";
            } catch (IllegalStateException e) {
                outcomes[i++] = e.getMessage();
            }
        }
        assertEquals(outcomes[0], outcomes[1]);
        assertTrue(outcomes[0].contains("after an object has been read"), outcomes[0]);
    }

    // ---- the filter's questions --------------------------------------------------------------------

    static final class Recording implements ObjectInputFilter {
        final List<FilterInfo> questions = new ArrayList<>();

        @Override
        public Status checkInput(FilterInfo info) {
            questions.add(info);
            return Status.UNDECIDED;
        }
    }

    static String question(ObjectInputFilter.FilterInfo info) {
        return (info.serialClass() == null ? "-" : info.serialClass().getName()) + " array=" + info.arrayLength()
                + " depth=" + info.depth() + " refs=" + info.references() + " bytes=" + info.streamBytes();
    }

    /** The questions asked, then how the read ended: "read", or the exception's class and message (the class's own). */
    static List<String> jdkQuestions(boolean annotated, Object... message) throws Exception {
        Recording recording = new Recording();
        ObjectInputStream in = jdkInput(annotated, message);
        in.setObjectInputFilter(recording);
        return asked(recording, in, message.length);
    }

    private static List<String> asked(Recording recording, ObjectInputStream in, int objects) {
        String end;
        try {
            readMessage(in, objects);
            end = "read";
        } catch (Exception e) {
            end = e.getClass().getName() + (e instanceof RuntimeException ? ": " + e.getMessage() : "");
        }
        List<String> asked = new ArrayList<>(recording.questions.stream().map(FilterDifferentialTest::question).toList());
        asked.add(end);
        return asked;
    }

    static List<ObjectInputFilter.FilterInfo> jdkQuestionsRaw(boolean annotated, Object... message) throws Exception {
        Recording recording = new Recording();
        ObjectInputStream in = jdkInput(annotated, message);
        in.setObjectInputFilter(recording);
        readMessage(in, message.length);
        return recording.questions;
    }

    static List<String> leanQuestions(boolean annotated, Object... message) throws Exception {
        Recording recording = new Recording();
        LeanObjectInputStream in = leanInput(annotated, message);
        in.setObjectInputFilter(recording);
        return asked(recording, in, message.length);
    }

    static String jdkDecision(boolean annotated, Object[] message, String pattern) throws Exception {
        ObjectInputStream in = jdkInput(annotated, message);
        in.setObjectInputFilter(ObjectInputFilter.Config.createFilter(pattern));
        return decision(in, message.length);
    }

    static String leanDecision(boolean annotated, Object[] message, String pattern) throws Exception {
        LeanObjectInputStream in = leanInput(annotated, message);
        in.setObjectInputFilter(ObjectInputFilter.Config.createFilter(pattern));
        return decision(in, message.length);
    }

    private static String decision(ObjectInputStream in, int objects) throws Exception {
        try {
            readMessage(in, objects);
            return "accepted";
        } catch (InvalidClassException e) {
            return e.getMessage();
        }
    }

    /** A message as RMI's calls are: a primitive header, then objects with primitives between them. */
    static void writeMessage(ObjectOutputStream out, Object[] message) throws IOException {
        out.writeLong(0x1234_5678_9ABCL);
        out.writeInt(-7);
        for (int i = 0; i < message.length; i++) {
            out.writeObject(message[i]);
            if (i % 2 == 0) {
                out.writeShort(i);
            }
        }
    }

    static void readMessage(ObjectInputStream in, int objects) throws Exception {
        in.readLong();
        in.readInt();
        for (int i = 0; i < objects; i++) {
            in.readObject();
            if (i % 2 == 0) {
                in.readShort();
            }
        }
    }

    static ObjectInputStream jdkInput(boolean annotated, Object[] message) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = annotated ? new AnnotatingOutput(bytes) : new ObjectOutputStream(bytes)) {
            writeMessage(out, message);
        }
        ByteArrayInputStream in = new ByteArrayInputStream(bytes.toByteArray());
        return annotated ? new AnnotatingInput(in) : new ObjectInputStream(in);
    }

    static LeanObjectInputStream leanInput(boolean annotated, Object[] message) throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        LeanWriter writer = new LeanWriter(wire, null, annotated ? FilterDifferentialTest::annotation : null);
        LeanObjectOutputStream out = new LeanObjectOutputStream(writer);
        writeMessage(out, message);
        out.endMessage();
        ClassLoaderResolver classes = new ClassLoaderResolver(FilterDifferentialTest.class.getClassLoader());
        ClassResolver resolver = !annotated ? classes : new ClassResolver() {
            @Override
            public Class<?> resolve(String name, String annotation) throws ClassNotFoundException {
                return classes.resolve(name, annotation);
            }

            @Override
            public Class<?> resolveProxy(String[] interfaces, String annotation) throws ClassNotFoundException {
                return classes.resolveProxy(interfaces, annotation);
            }

            @Override
            public Object context() {
                return classes.context();
            }

            @Override
            public boolean readsAnnotations() {
                return true;
            }
        };
        return new LeanObjectInputStream(new LeanReader(new ByteArrayInputStream(wire.toByteArray()), resolver));
    }

    /** RMI's rule for a class's codebase as the lean writer applies it: none for java.* and primitive arrays. */
    static String annotation(Class<?> type) {
        Class<?> element = type;
        while (element.isArray()) {
            element = element.getComponentType();
        }
        return element.isPrimitive() || element.getName().startsWith("java.") ? null : CODEBASE;
    }

    /** A stream that writes each class's codebase annotation as an object, as RMI's MarshalOutputStream. */
    static final class AnnotatingOutput extends ObjectOutputStream {
        AnnotatingOutput(java.io.OutputStream out) throws IOException {
            super(out);
        }

        @Override
        protected void annotateClass(Class<?> cl) throws IOException {
            writeObject(annotation(cl));
        }

        @Override
        protected void annotateProxyClass(Class<?> cl) throws IOException {
            writeObject(annotation(cl));
        }
    }

    /** Reads what {@link AnnotatingOutput} writes, as RMI's MarshalInputStream. */
    static final class AnnotatingInput extends ObjectInputStream {
        AnnotatingInput(java.io.InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            readObject();
            return super.resolveClass(desc);
        }

        @Override
        protected Class<?> resolveProxyClass(String[] interfaces) throws IOException, ClassNotFoundException {
            readObject();
            return super.resolveProxyClass(interfaces);
        }
    }

    /** The most of each limit the JDK's stream reached, and the filters just at and just below it. */
    record Limits(long depth, long refs, long bytes, long array) {
        static Limits of(List<ObjectInputFilter.FilterInfo> questions) {
            long depth = 0;
            long refs = 0;
            long bytes = 0;
            long array = -1;
            for (ObjectInputFilter.FilterInfo q : questions) {
                depth = Math.max(depth, q.depth());
                refs = Math.max(refs, q.references());
                bytes = Math.max(bytes, q.streamBytes());
                array = Math.max(array, q.arrayLength());
            }
            return new Limits(depth, refs, bytes, array);
        }

        List<String[]> pairs() {
            List<String[]> pairs = new ArrayList<>();
            pairs.add(new String[] {"maxdepth=" + depth, "maxdepth=" + (depth - 1)});
            pairs.add(new String[] {"maxrefs=" + refs, "maxrefs=" + (refs - 1)});
            pairs.add(new String[] {"maxbytes=" + bytes, "maxbytes=" + (bytes - 1)});
            if (array > 0) {
                pairs.add(new String[] {"maxarray=" + array, "maxarray=" + (array - 1)});
            }
            return pairs;
        }

        List<String> filters() {
            List<String> filters = new ArrayList<>();
            for (String[] pair : pairs()) {
                if (!pair[1].endsWith("=0") && !pair[1].endsWith("=-1")) {
                    filters.add(pair[0]);
                    filters.add(pair[1]);
                }
            }
            return filters;
        }
    }

    private static String describe(Object[] message) {
        StringBuilder s = new StringBuilder();
        for (Object o : message) {
            s.append(o == null ? "null" : o.getClass().getName()).append(' ');
        }
        return s.toString();
    }

    // ---- random graphs -----------------------------------------------------------------------------

    /** Random object graphs of the classes below and a few of the JDK's: shares, cycles, arrays, hooks. */
    static final class Graphs {
        private final Random random;
        private final List<Object> made = new ArrayList<>();
        private int budget;

        Graphs(Random random) {
            this.random = random;
            this.budget = 5 + random.nextInt(60);
        }

        Object[] message() {
            Object[] message = new Object[1 + random.nextInt(3)];
            for (int i = 0; i < message.length; i++) {
                message[i] = value(0);
            }
            return message;
        }

        private Object value(int depth) {
            if (budget-- <= 0 || depth > 12) {
                return random.nextInt(4) == 0 || made.isEmpty() ? null : made.get(random.nextInt(made.size()));
            }
            if (!made.isEmpty() && random.nextInt(6) == 0) {
                return made.get(random.nextInt(made.size())); // shared, maybe a cycle's way back
            }
            Object v = switch (random.nextInt(18)) {
                case 0 -> null;
                case 1 -> string();
                case 2 -> random.nextInt();
                case 3 -> Kind.values()[random.nextInt(3)];
                case 4 -> primitiveArray();
                case 5 -> objectArray(depth);
                case 6 -> new Pair(random.nextInt(), value(depth + 1));
                case 7 -> {
                    Custom c = new Custom(random.nextInt(5));
                    made.add(c);
                    c.extra = value(depth + 1);
                    c.other = value(depth + 1);
                    yield c;
                }
                case 8 -> {
                    Ext e = new Ext();
                    made.add(e);
                    e.v = random.nextInt();
                    e.o = value(depth + 1);
                    yield e;
                }
                case 9 -> new Replaced(random.nextInt(3));
                case 10 -> new Class<?>[] {Node.class, int.class, String.class, Kind.class}[random.nextInt(4)];
                case 11 -> {
                    SubNode s = new SubNode();
                    made.add(s);
                    fill(s, depth);
                    s.x = random.nextDouble();
                    s.kids = new Node[random.nextInt(3)];
                    for (int i = 0; i < s.kids.length; i++) {
                        Object kid = value(depth + 1);
                        s.kids[i] = kid instanceof Node n ? n : null;
                    }
                    yield s;
                }
                case 12 -> new java.util.ArrayList<>(java.util.List.of(string(), random.nextInt()));
                case 14 -> new Refuses(random.nextInt(8) == 0, value(depth + 1));
                case 13 -> java.lang.reflect.Proxy.newProxyInstance(FilterDifferentialTest.class.getClassLoader(),
                        new Class<?>[] {Corpus.Greeter.class}, new Corpus.FixedAnswer("hi"));
                default -> {
                    Node n = new Node();
                    made.add(n);
                    fill(n, depth);
                    yield n;
                }
            };
            if (v != null && !(v instanceof Node) && !(v instanceof Custom) && !(v instanceof Ext)) {
                made.add(v);
            }
            return v;
        }

        private void fill(Node n, int depth) {
            n.id = random.nextInt();
            n.w = random.nextLong();
            n.s = random.nextBoolean() ? string() : null;
            n.a = value(depth + 1);
            n.b = value(depth + 1);
        }

        private String string() {
            int kind = random.nextInt(20);
            if (kind == 0) {
                return "é\u0000\u2603".repeat(random.nextInt(5)); // two- and three-byte UTF-8, and NUL
            }
            if (kind == 1) {
                return "L".repeat(65_536 + random.nextInt(3)); // a long string (TC_LONGSTRING)
            }
            return Integer.toString(random.nextInt(), 36);
        }

        private Object primitiveArray() {
            int n = random.nextInt(2000);
            return switch (random.nextInt(4)) {
                case 0 -> new int[n];
                case 1 -> new double[n];
                case 2 -> new byte[n];
                default -> new char[n];
            };
        }

        private Object objectArray(int depth) {
            Object[] array = random.nextBoolean() ? new Object[random.nextInt(6)] : new Node[random.nextInt(6)];
            made.add(array);
            for (int i = 0; i < array.length; i++) {
                Object v = value(depth + 1);
                array[i] = array instanceof Node[] && !(v instanceof Node) ? null : v;
            }
            return array;
        }
    }

    enum Kind { A, B, C }

    record Pair(int x, Object y) implements Serializable {
    }

    static class Node implements Serializable {
        int id;
        long w;
        String s;
        Object a;
        Object b;
    }

    static final class SubNode extends Node {
        double x;
        Node[] kids;
    }

    /** writeObject data: default fields, then primitives and objects of its own, read back the same way. */
    static final class Custom implements Serializable {
        final int count;
        transient Object extra;
        transient Object other;

        Custom(int count) {
            this.count = count;
        }

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            for (int i = 0; i < count; i++) {
                out.writeInt(i);
            }
            out.writeObject(extra);
            out.write(new byte[count * 400]);
            out.writeUTF("end");
            out.writeObject(other);
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            for (int i = 0; i < count; i++) {
                in.readInt();
            }
            extra = in.readObject();
            in.readFully(new byte[count * 400]);
            in.readUTF();
            other = in.readObject();
        }
    }

    public static final class Ext implements Externalizable {
        int v;
        Object o;

        public Ext() {
        }

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            out.writeInt(v);
            out.writeObject(o);
            out.writeLong(v);
        }

        @Override
        public void readExternal(ObjectInput in) throws IOException, ClassNotFoundException {
            v = in.readInt();
            o = in.readObject();
            in.readLong();
        }
    }

    /** Sometimes refuses in its readObject, after reading its fields: the caller gets its exception. */
    static final class Refuses implements Serializable {
        final boolean refuse;
        final Object inside;

        Refuses(boolean refuse, Object inside) {
            this.refuse = refuse;
            this.inside = inside;
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            if (refuse) {
                throw new IllegalStateException("refused, holding " + (inside == null ? null : inside.getClass().getName()));
            }
        }
    }

    /** Replaced on reading by another object (the JDK asks the filter about the replacement). */
    static final class Replaced implements Serializable {
        final int how;

        Replaced(int how) {
            this.how = how;
        }

        private Object readResolve() {
            return switch (how) {
                case 0 -> this;
                case 1 -> new int[how + 4];
                default -> Kind.B;
            };
        }
    }
}
