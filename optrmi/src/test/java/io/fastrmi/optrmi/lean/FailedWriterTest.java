package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import org.junit.jupiter.api.Test;

/**
 * A writer whose message failed (a value that cannot be serialized, as in OpenJDK's
 * PinLastArguments test) keeps no reference to the message's objects: while the writer itself is
 * still reachable, they can be collected.
 */
class FailedWriterTest {

    static final class Argument implements Serializable {
        private static final long serialVersionUID = 1L;
        final int[] payload = new int[16];
    }

    @Test
    void aFailedMessagePinsNoneOfItsObjects() throws Exception {
        LeanWriter writer = new LeanWriter(new ByteArrayOutputStream(), null);
        WeakReference<Argument> written = writeThenFail(writer);
        for (int i = 0; i < 100 && written.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertTrue(written.get() == null, "the failed message's first argument is still reachable from its writer");
        assertTrue(writer.isBroken());
    }

    /** A message of an argument, then an object that is not serializable; the argument's weak reference. */
    private static WeakReference<Argument> writeThenFail(LeanWriter writer) throws IOException {
        Argument argument = new Argument();
        LeanObjectOutputStream out = new LeanObjectOutputStream(writer);
        out.writeObject(argument);
        assertThrows(NotSerializableException.class, () -> out.writeObject(new Object()));
        return new WeakReference<>(argument);
    }
}
