package io.fastrmi.optrmi.lean;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectStreamField;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fields read and set in place ({@link DirectFields}) against the JDK's field reflector: the same
 * bytes on the wire, each way reads what the other wrote (the two ends of a connection may differ),
 * and a value of the wrong type is refused before any field is set.
 */
class DirectFieldsTest {

    static List<Corpus.Shape> shapes() {
        return Corpus.shapes();
    }

    /** Every primitive type, with values whose sign, high bits and bit patterns must survive. */
    static final class AllPrimitives implements Serializable {
        private static final long serialVersionUID = 1L;
        boolean z = true;
        byte b = -3;
        char c = '\uFFFE';
        short s = Short.MIN_VALUE;
        int i = -5;
        long j = Long.MIN_VALUE + 1;
        float f = -0.0f;
        double d = -Double.MIN_VALUE;
        String text = "t";
    }

    /** A NaN's payload: JDK 17's field reflector makes it the canonical NaN, JDK 21's on keep it, as this does. */
    static final class Payloads implements Serializable {
        private static final long serialVersionUID = 1L;
        double d = Double.longBitsToDouble(0x7ff0_0000_0000_0001L);
        float f = Float.intBitsToFloat(0x7f80_0001);
    }

    /** No int or long: its fields go as the JDK's bytes in one piece on the JDK's way. */
    static final class NoIntegers implements Serializable {
        private static final long serialVersionUID = 1L;
        double x = -1.5;
        char c = 'é';
        boolean flag = true;
        float y = Float.MAX_VALUE;
        Object next;
    }

    static final class Holder implements Serializable {
        private static final long serialVersionUID = 1L;
        Integer count;
        String name;
    }

    /**
     * A persistent field with no field behind it: such a class cannot be written by default (the JDK
     * refuses it), only read, where the JDK skips the field; there its way is taken.
     */
    static final class Phantom implements Serializable {
        private static final long serialVersionUID = 1L;
        private static final ObjectStreamField[] serialPersistentFields = {
            new ObjectStreamField("real", int.class), new ObjectStreamField("ghost", String.class)};
        int real = 4;
    }

    @Test
    void theJdksUnsafeIsReachableInTheseTests() {
        assertNull(DirectFields.unavailableReason(), "the tests pass --add-exports java.base/jdk.internal.misc");
    }

    /**
     * Field values go through no method handle: the 19 bound ones DirectFields had spun about 45
     * classes in each JVM before its first lean call (25-30 ms of CPU), and ran slowly until the JIT
     * had them. UnsafeFields calls the JDK's Unsafe directly.
     */
    @Test
    void fieldsAreReachedWithoutMethodHandles() {
        noClasses().that().haveFullyQualifiedName(DirectFields.class.getName())
                .or().haveFullyQualifiedName(UnsafeFields.class.getName())
                .should().dependOnClassesThat().resideInAPackage("java.lang.invoke")
                .check(new ClassFileImporter().importPath(Path.of("target", "classes")));
    }

    /**
     * Without the export (a JVM that neither runs the agent nor says --add-exports) the fields go the
     * JDK's way, and nothing reaches UnsafeFields, whose first call would fail to link there.
     */
    @Test
    void withoutTheExportFieldsGoTheJdksWay() throws Exception {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens", "java.base/java.io=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                NoExportMain.class.getName()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        assertTrue(output.contains("UNAVAILABLE jdk.internal.misc.Unsafe is not exported to FastRMI"), output);
        assertFalse(output.contains("DIFFERS"), output);
        assertTrue(output.contains("SHAPES " + Corpus.shapes().size()), output);
    }

    @Test
    void aStringsCoderTellsOneBytePerCharFromTwo() {
        assertTrue(DirectFields.isLatin1("plain ascii"));
        assertTrue(DirectFields.isLatin1("caf\u00e9 \u00ff"), "Latin-1 beyond ASCII");
        assertTrue(DirectFields.isLatin1(""));
        assertFalse(DirectFields.isLatin1("\u0100"));
        assertFalse(DirectFields.isLatin1("ascii then \u20ac"));
    }

    @Test
    void plainClassesGoDirectlyTheOthersTheJdksWay() {
        assertNotNull(lastSlot(Corpus.Tree.class).offsets);
        assertNotNull(lastSlot(AllPrimitives.class).offsets);
        assertNull(lastSlot(Phantom.class).offsets, "a persistent field with no field behind it");
        assertNotNull(lastSlot(Corpus.Point.class).offsets, "a record's fields are read directly (it is made by its constructor)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void bothWaysWriteTheSameBytesAndReadEachOther(Corpus.Shape shape) throws Exception {
        assertBothWaysAgree(shape.make().get(), shape.name());
    }

    @Test
    void everyPrimitiveTypeBothWays() throws Exception {
        assertBothWaysAgree(new AllPrimitives(), "AllPrimitives");
        assertBothWaysAgree(new NoIntegers(), "NoIntegers");
        for (boolean direct : new boolean[] {true, false}) {
            InvalidClassException e = assertThrows(InvalidClassException.class, () -> write(new Phantom(), direct));
            assertTrue(e.getMessage().contains("unmatched serializable field"), e.getMessage());
            assertThrows(InvalidClassException.class, () -> Corpus.jdkBytes(new Phantom()), "as the JDK refuses it");
        }
        AllPrimitives read = (AllPrimitives) read(write(new AllPrimitives(), true), true);
        AllPrimitives sent = new AllPrimitives();
        assertEquals(sent.c, read.c);
        assertEquals(sent.s, read.s);
        assertEquals(sent.j, read.j);
        assertEquals(Float.floatToRawIntBits(sent.f), Float.floatToRawIntBits(read.f), "-0.0f");
        assertEquals(Double.doubleToRawLongBits(sent.d), Double.doubleToRawLongBits(read.d));
        Payloads nan = (Payloads) read(write(new Payloads(), true), true);
        assertEquals(0x7ff0_0000_0000_0001L, Double.doubleToRawLongBits(nan.d));
        assertEquals(0x7f80_0001, Float.floatToRawIntBits(nan.f));
    }

    @Test
    void aValueOfTheWrongTypeIsRefusedBeforeAnyFieldIsSet() {
        LeanClass.Slot slot = lastSlot(Holder.class);
        assertNotNull(slot.offsets);
        Holder holder = new Holder();
        // Object fields in the JDK's order (by name): count, then name.
        ClassCastException e = assertThrows(ClassCastException.class,
                () -> DirectFields.putCheckedReferences(holder, slot, slot.offsets, new Object[] {"not a number", "n"}));
        assertTrue(e.getMessage().contains(Holder.class.getName() + ".count"), e.getMessage());
        assertNull(holder.count);
        assertNull(holder.name, "nothing is set when one value is refused");
        DirectFields.putCheckedReferences(holder, slot, slot.offsets, new Object[] {7, "n"});
        assertEquals(7, holder.count);
        assertEquals("n", holder.name);
    }

    /** Five object fields: more than the reader holds in locals, so its scratch array is used. */
    static final class Wide implements Serializable {
        private static final long serialVersionUID = 1L;
        Integer a;
        String b;
        String c;
        String d;
        String e;
    }

    /**
     * Off the wire, through the reader: a back reference to a String where an Integer field's value
     * goes is refused by name, whether the class's fields are held in locals (Holder: two) or in
     * the scratch (Wide: five), read directly or the JDK's way.
     */
    @Test
    void aValueOfTheWrongTypeOffTheWireIsRefusedByName() throws Exception {
        Integer five = 5;
        Holder holder = new Holder();
        holder.count = five;
        Wide wide = new Wide();
        wide.a = five;
        for (Object target : List.of(holder, wide)) {
            // "s" gets handle 1, five handle 2; the target's first field (count, a) refers to handle 2.
            byte[] wire = write(new Object[] {"s", five, target}, true);
            int ref = lastBackReference(wire, 2);
            wire[ref + 1] = 1; // now the String's handle
            String field = target == holder ? "Holder.count" : "Wide.a";
            for (boolean direct : new boolean[] {true, false}) {
                // The JDK's own refusal: its field reflector's ClassCastException, which its stream passes on.
                ClassCastException e = assertThrows(ClassCastException.class,
                        () -> read(wire, direct), field + ", direct " + direct);
                assertTrue(e.getMessage().contains("cannot assign instance of java.lang.String") && e.getMessage().contains(field),
                        e.getMessage());
            }
            assertEquals(five, ((Object[]) read(write(new Object[] {"s", five, target}, true), true))[1], "the bytes unchanged read back");
        }
    }

    /** Where the last back reference to {@code handle} (REF, then the handle as a one-byte varint) begins. */
    private static int lastBackReference(byte[] wire, int handle) {
        for (int i = wire.length - 2; i >= 0; i--) {
            if (wire[i] == LeanFormat.REF && wire[i + 1] == handle) {
                return i;
            }
        }
        throw new AssertionError("no back reference to " + handle);
    }

    private static LeanClass.Slot lastSlot(Class<?> type) {
        LeanClass.Slot[] slots = LeanClass.of(type).slots;
        return slots[slots.length - 1];
    }

    private static void assertBothWaysAgree(Object obj, String name) throws Exception {
        byte[] direct = write(obj, true);
        byte[] jdk = write(obj, false);
        assertArrayEquals(jdk, direct, name + ": the bytes on the wire");
        byte[] expected = LeanPipe.jdkBytes(LeanPipe.jdkRoundTrip(obj));
        for (byte[] wire : List.of(direct, jdk)) {
            for (boolean directRead : new boolean[] {true, false}) {
                assertArrayEquals(expected, LeanPipe.jdkBytes(read(wire, directRead)), name + ", read directly: " + directRead);
            }
        }
    }

    private static byte[] write(Object obj, boolean direct) throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        LeanWriter writer = new LeanWriter(wire, null);
        writer.directFields = direct;
        LeanObjectOutputStream out = new LeanObjectOutputStream(writer);
        out.writeObject(obj);
        out.endMessage();
        return wire.toByteArray();
    }

    private static Object read(byte[] wire, boolean direct) throws IOException, ClassNotFoundException {
        LeanReader reader = LeanPipe.reader(wire);
        reader.fields.direct = direct;
        return LeanPipe.receive(reader, 1)[0];
    }
}
