package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.Externalizable;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInput;
import java.io.ObjectInputStream;
import java.io.ObjectInputValidation;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.io.OptionalDataException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a class's serialization hooks throw reaches the caller as the JDK's stream gives it, and a
 * class whose hooks read other than they wrote is refused (or read) where the JDK's stream refuses
 * (or reads) it, with the same exception: each case read both ways in the same test, the JDK's
 * outcome computed, never written down here.
 */
class HookExceptionsTest {

    record Case(String name, Supplier<Object> make) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> cases() {
        return Stream.of(
                new Case("readObject throws IllegalStateException", ThrowsInReadObject::new),
                new Case("readResolve throws UnsupportedOperationException", ThrowsInReadResolve::new),
                new Case("readExternal throws IllegalArgumentException", () -> new External(0)),
                new Case("validateObject throws InvalidObjectException", () -> new Validates(false)),
                new Case("validateObject throws IllegalStateException", () -> new Validates(true)),
                new Case("constructor of a non-serializable parent throws", ParentRefuses::new),
                new Case("readObject reads default fields writeObject did not write", SkipsDefaultWrite::new),
                new Case("writeObject writes more than readObject reads", WritesExtra::new),
                new Case("readObject reads an object where an int was written", ReadsObjectForInt::new),
                new Case("readObject reads an int where an object was written", ReadsIntForObject::new),
                new Case("readObject reads objects until the end of the data", ReadsToTheEnd::new),
                new Case("readObject reads an object before the int it wrote", ReadsOutOfOrder::new),
                new Case("readObject reads defaults before the block it wrote first", DefaultsAfterBlock::new),
                new Case("readExternal reads past what writeExternal wrote", () -> new External(1)));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theLeanReaderEndsAsTheJdksStream(Case c) throws Exception {
        String jdk;
        String lean;
        ParentRefuses.refuse = false;
        byte[] jdkBytes = Corpus.jdkBytes(new Object[] {c.make().get(), "after"});
        LeanPipe pipe = new LeanPipe();
        pipe.send((Object) new Object[] {c.make().get(), "after"});
        ParentRefuses.refuse = true;
        try {
            jdk = outcome(() -> {
                try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(jdkBytes))) {
                    return in.readObject();
                }
            });
            lean = outcome(() -> LeanPipe.receive(LeanPipe.reader(pipe.bytes()), 1)[0]);
        } finally {
            ParentRefuses.refuse = false;
        }
        assertEquals(jdk, lean, c.name());
    }

    /** The JDK's class of exception, its message where it comes from the class itself, OptionalDataException's fields. */
    private static String outcome(ReadAction read) {
        try {
            Object[] read0 = (Object[]) read.read();
            return "read " + read0.length + " objects, the last " + read0[1];
        } catch (OptionalDataException e) {
            return "OptionalDataException eof=" + e.eof + " length=" + e.length;
        } catch (java.io.StreamCorruptedException | java.io.EOFException e) {
            return e.getClass().getName(); // messages are the streams' own
        } catch (Throwable t) {
            return t.getClass().getName() + ": " + t.getMessage() + (t.getCause() == null ? "" : " (" + t.getCause().getClass().getName() + ")");
        }
    }

    interface ReadAction {
        Object read() throws Exception;
    }

    static final class ThrowsInReadObject implements Serializable {
        int x = 1;

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            throw new IllegalStateException("refused by the class: x=" + x);
        }
    }

    static final class ThrowsInReadResolve implements Serializable {
        private Object readResolve() {
            throw new UnsupportedOperationException("no resolving");
        }
    }

    /** Writes its mode, then a short; reads them, then throws (mode 0) or reads a long past the end (mode 1). */
    public static final class External implements Externalizable {
        private int mode;

        public External() {
        }

        External(int mode) {
            this.mode = mode;
        }

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            out.writeByte(mode);
            out.writeShort(3);
        }

        @Override
        public void readExternal(ObjectInput in) throws IOException {
            mode = in.readByte();
            short value = in.readShort();
            if (mode == 0) {
                throw new IllegalArgumentException("external refused " + value);
            }
            in.readLong();
        }
    }

    static final class Validates implements Serializable, ObjectInputValidation {
        final boolean unchecked;

        Validates(boolean unchecked) {
            this.unchecked = unchecked;
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            in.registerValidation(this, 0);
        }

        @Override
        public void validateObject() throws InvalidObjectException {
            if (unchecked) {
                throw new IllegalStateException("validation refused");
            }
            throw new InvalidObjectException("invalid by validation");
        }
    }

    static class Refusing {
        Refusing() {
            if (ParentRefuses.refuse) {
                throw new IllegalStateException("the parent's constructor refuses");
            }
        }
    }

    static final class ParentRefuses extends Refusing implements Serializable {
        static volatile boolean refuse;
        int v = 4;
    }

    static final class SkipsDefaultWrite implements Serializable {
        int a = 7;
        String s = "s";

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeObject("not the fields");
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
        }
    }

    static final class WritesExtra implements Serializable {
        int a = 7;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeInt(99);
            out.writeObject(new ArrayList<>(List.of("extra")));
            out.writeUTF("more");
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
        }

        @Override
        public String toString() {
            return "WritesExtra " + a;
        }
    }

    static final class ReadsObjectForInt implements Serializable {
        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeInt(5);
            out.writeLong(6);
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            in.readObject();
        }
    }

    static final class ReadsIntForObject implements Serializable {
        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeObject("an object");
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            in.readInt();
        }
    }

    /** Reads objects until OptionalDataException says the data ended: the JDK's stream reads on after it. */
    static final class ReadsToTheEnd implements Serializable {
        transient List<Object> items = new ArrayList<>(List.of("a", 2, "c"));

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            for (Object o : items) {
                out.writeObject(o);
            }
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            items = new ArrayList<>();
            try {
                while (true) {
                    items.add(in.readObject());
                }
            } catch (OptionalDataException e) {
                if (!e.eof) {
                    throw e;
                }
            }
        }

        @Override
        public String toString() {
            return "ReadsToTheEnd " + items;
        }
    }

    /** Catches the OptionalDataException and reads the int, then the object: the JDK's stream allows it. */
    static final class ReadsOutOfOrder implements Serializable {
        transient String got;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeInt(41);
            out.writeObject("obj");
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            try {
                in.readObject();
                got = "no exception";
            } catch (OptionalDataException e) {
                got = e.length + " bytes first: " + in.readInt() + " then " + in.readObject();
            }
        }

        @Override
        public String toString() {
            return "ReadsOutOfOrder " + got;
        }
    }

    static final class DefaultsAfterBlock implements Serializable {
        int a = 3;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeInt(1);
            out.defaultWriteObject();
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
        }
    }


    @ParameterizedTest
    @MethodSource("cases")
    void everyCaseIsReadTheSameTwiceOnOneConnection(Case c) throws Exception {
        // What a hook leaves or refuses must not disturb the connection's next message where it did
        // not fail this one; a failed message breaks the reader, and that must be said.
        LeanPipe pipe = new LeanPipe();
        pipe.send(c.make().get());
        pipe.send("second");
        LeanReader reader = LeanPipe.reader(pipe.bytes());
        ParentRefuses.refuse = true;
        boolean failed = false;
        try {
            LeanPipe.receive(reader, 1);
        } catch (Exception | Error e) {
            failed = true;
        } finally {
            ParentRefuses.refuse = false;
        }
        if (failed) {
            assertTrue(reader.isBroken(), c + ": a failed message must break its reader");
        } else {
            assertEquals("second", LeanPipe.receive(reader, 1)[0], c.name());
        }
    }
}
