package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.Serializable;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A class that differs between the two ends (another serialVersionUID, other fields) is refused on
 * first sight with an InvalidClassException that names it and what differs; nothing more is read of
 * the connection (RMI replies with the exception, then the connection closes). Simulated in one JVM by resolving the sender's class name to another class.
 */
class LeanClassCheckTest {

    static final class Sent implements Serializable {
        private static final long serialVersionUID = 1L;
        int x = 1;
        int y = 2;
    }

    static final class OtherUid implements Serializable {
        private static final long serialVersionUID = 2L;
        int x;
        int y;
    }

    static final class OtherFieldType implements Serializable {
        private static final long serialVersionUID = 1L;
        int x;
        long y;
    }

    static final class FieldMissing implements Serializable {
        private static final long serialVersionUID = 1L;
        int x;
    }

    static final class NotSerializableHere {
        int x;
        int y;
    }

    /** The class loader's classes, except that {@code name} is {@code here} (or unknown, for null). */
    static ClassResolver resolving(String name, Class<?> here) {
        ClassLoaderResolver loader = new ClassLoaderResolver(LeanClassCheckTest.class.getClassLoader());
        return new ClassResolver() {
            @Override
            public Object context() {
                return loader.context();
            }

            @Override
            public Class<?> resolve(String sent, String annotation) throws ClassNotFoundException {
                if (!sent.equals(name)) {
                    return loader.resolve(sent, annotation);
                }
                if (here == null) {
                    throw new ClassNotFoundException(sent);
                }
                return here;
            }

            @Override
            public Class<?> resolveProxy(String[] interfaces, String annotation) throws ClassNotFoundException {
                return loader.resolveProxy(interfaces, annotation);
            }
        };
    }

    private static InvalidClassException readAs(Class<?> here) throws IOException {
        LeanPipe pipe = new LeanPipe();
        pipe.send(new Sent());
        pipe.send("next call");
        ClassResolver resolver = resolving(Sent.class.getName(), here);
        LeanReader reader = new LeanReader(new ByteArrayInputStream(pipe.bytes()), resolver);
        InvalidClassException e = assertThrows(InvalidClassException.class, () -> LeanPipe.receive(reader, 1));
        assertEquals(Sent.class.getName(), e.classname);
        // Nothing more is read of that message, and the connection is done for (RMI replies, then closes).
        IOException after = assertThrows(IOException.class, () -> LeanPipe.receive(reader, 1));
        assertTrue(reader.isBroken());
        assertTrue(after.getMessage().contains("failed earlier") && after.getMessage().contains(Sent.class.getName()),
                after.getMessage());
        return e;
    }

    @Test
    void anotherSerialVersionUid() throws IOException {
        InvalidClassException e = readAs(OtherUid.class);
        assertTrue(e.getMessage().contains("serialVersionUID differs: sent 1, here 2"), e.getMessage());
    }

    @Test
    void aFieldOfAnotherType() throws IOException {
        InvalidClassException e = readAs(OtherFieldType.class);
        assertTrue(e.getMessage().contains("serializable fields of " + Sent.class.getName() + " differ: sent [I x;I y;], here [I x;J y;]"),
                e.getMessage());
    }

    @Test
    void aMissingField() throws IOException {
        InvalidClassException e = readAs(FieldMissing.class);
        assertTrue(e.getMessage().contains("sent [I x;I y;], here [I x;]"), e.getMessage());
    }

    @Test
    void notSerializableHere() throws IOException {
        InvalidClassException e = readAs(NotSerializableHere.class);
        assertTrue(e.getMessage().contains("sent as serializable, not serializable here"), e.getMessage());
    }

    @Test
    void theSameClassPasses() throws Exception {
        LeanPipe pipe = new LeanPipe();
        pipe.send(new Sent());
        Object read = LeanPipe.receive(LeanPipe.reader(pipe.bytes()), 1)[0];
        assertEquals(2, ((Sent) read).y);
    }

    @Test
    void enumConstantsThatDiffer() throws IOException {
        LeanPipe pipe = new LeanPipe();
        pipe.send(Corpus.Color.BLUE);
        ClassResolver resolver = resolving(Corpus.Color.class.getName(), Corpus.Op.class);
        LeanReader reader = new LeanReader(new ByteArrayInputStream(pipe.bytes()), resolver);
        InvalidClassException e = assertThrows(InvalidClassException.class, () -> LeanPipe.receive(reader, 1));
        assertTrue(e.getMessage().contains("enum constants differ: sent [RED, GREEN, BLUE], here [PLUS, MINUS]"), e.getMessage());
    }

    @Test
    void anUnknownClassIsClassNotFound() throws IOException {
        LeanPipe pipe = new LeanPipe();
        pipe.send(Map.of("k", new Sent()));
        ClassResolver resolver = resolving(Sent.class.getName(), null);
        LeanReader reader = new LeanReader(new ByteArrayInputStream(pipe.bytes()), resolver);
        ClassNotFoundException e = assertThrows(ClassNotFoundException.class, () -> LeanPipe.receive(reader, 1));
        assertEquals(Sent.class.getName(), e.getMessage());
        reader.endMessage();
        assertTrue(reader.isBroken());
    }
}
