package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Two marshal streams' holds on one connection's reader, as RMI's client uses them: a call frees
 * the connection once its value is read and releases its input later, while the next call may
 * already read its own reply.
 */
class InputHoldTest {

    private static ObjectInputStream facade() throws IOException {
        return new ObjectInputStream() {
        };
    }

    private static byte[] twoMessages() throws IOException {
        LeanPipe pipe = new LeanPipe();
        pipe.send("first", 1);
        pipe.send("second", 2);
        return pipe.bytes();
    }

    @Test
    void aReleaseAfterTheFreeLeavesTheNextCallsMessageAlone() throws Exception {
        LeanReader reader = LeanPipe.reader(twoMessages());
        InputHold first = new InputHold(reader);
        InputHold next = new InputHold(reader);

        first.begin(facade());
        assertEquals("first", reader.readObject(false)); // the value; the rest is not the call's to read
        first.connectionFreed();
        assertFalse(first.mayBegin(), "the call before still releases its stream");

        next.begin(facade());
        assertEquals("second", reader.readObject(false));
        first.released(); // RMI's release of the call before, on its own thread, after the free
        assertTrue(first.mayBegin());
        assertEquals(2, reader.readObject(false), "the next call's message was not ended under it");
        next.released();
        assertFalse(reader.isBroken());
    }

    @Test
    void withoutAFreeTheReleaseEndsTheMessage() throws Exception {
        LeanReader reader = LeanPipe.reader(twoMessages());
        InputHold hold = new InputHold(reader);

        hold.begin(facade());
        assertEquals("first", reader.readObject(false));
        assertTrue(hold.mayBegin(), "only a free makes a stream the releasing call's");
        hold.released();

        hold.begin(facade());
        assertEquals("second", reader.readObject(false), "the first message's rest was skipped");
        assertEquals(2, reader.readObject(false));
        hold.released();
    }

    @Test
    void aMessageCutShortAtTheFreeBreaksTheReader() throws Exception {
        LeanPipe pipe = new LeanPipe();
        int size = pipe.send("first", new byte[4 * LeanFormat.FRAME_TARGET]); // frames beyond the first
        LeanReader reader = LeanPipe.reader(Arrays.copyOf(pipe.bytes(), size - 1));
        InputHold hold = new InputHold(reader);

        hold.begin(facade());
        assertEquals("first", reader.readObject(false));
        assertThrows(IOException.class, hold::connectionFreed);
        assertTrue(reader.isBroken(), "the connection must not go back to the pool");
        hold.released();
        assertTrue(hold.mayBegin());
    }
}
