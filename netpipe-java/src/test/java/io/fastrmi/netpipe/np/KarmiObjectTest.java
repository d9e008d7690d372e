package io.fastrmi.netpipe.np;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.netpipe.bench.objects.Int32;
import io.fastrmi.netpipe.bench.objects.Int4Null2;
import io.fastrmi.netpipe.bench.objects.Node;
import org.junit.jupiter.api.Test;

class KarmiObjectTest {

    @Test
    void namesKaRmisObjects() {
        assertNull(KarmiObject.parse("null").create());
        assertEquals(Int32.numbered(1), KarmiObject.parse("int32").create());
        assertEquals(Int4Null2.numbered(1), KarmiObject.parse("int4null2").create());
        assertEquals(15, ((Node) KarmiObject.parse("tree15").create()).size());
    }

    @Test
    void arraysCarryTheirLengthAndBytes() {
        KarmiObject floats = KarmiObject.parse("float:5000");
        assertEquals(20_000, floats.arrayBytes());
        assertEquals(5000, ((float[]) floats.create()).length);
        assertEquals(200, KarmiObject.parse("int:50").arrayBytes());
        assertArrayEquals(Messages.bytes(7), (byte[]) KarmiObject.parse("byte:7").create());
    }

    @Test
    void refusesWhatItDoesNotKnowSayingWhy() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KarmiObject.parse("tree16")).getMessage()
                .contains("there are"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KarmiObject.parse("float:x")).getMessage()
                .contains("not a number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KarmiObject.parse("float:-1")).getMessage()
                .contains("0.."));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KarmiObject.parse("long:4")).getMessage()
                .contains("float:N, byte:N or int:N"));
    }
}
