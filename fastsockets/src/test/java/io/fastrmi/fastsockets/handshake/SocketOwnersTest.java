package io.fastrmi.fastsockets.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

class SocketOwnersTest {

    @Test
    void rowsOfTheKernelsTableAreReadFieldByField() {
        String listener = "   3: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41234 1 0000";
        assertEquals("41234", SocketOwners.listenerInode(listener, 8080));
        assertNull(SocketOwners.listenerInode(listener, 8081), "another port");
        String established = listener.replace(" 0A ", " 01 ");
        assertNull(SocketOwners.listenerInode(established, 8080), "not a listener");
        String v6 = "   0: 00000000000000000000000000000000:1F90 00000000000000000000000000000000:0000 0A"
                + " 00000000:00000000 00:00000000 00000000     0        0 555 1 0000";
        assertEquals("555", SocketOwners.listenerInode(v6, 8080));
        for (String garbage : new String[] {"", "sl local rem st", "0: zz:zz 0:0 0A a b c d e f", "0: 1:99999999999 0:0 0A a b c d e f"}) {
            assertNull(SocketOwners.listenerInode(garbage, 8080), garbage);
        }
    }

    @Test
    void aProcessStartTimeIsCountedFromTheLastParenthesisOfItsStatLine() {
        String fields = " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 1234567 19 20";
        assertEquals(1234567, SocketOwners.startTicksOf("42 (java)" + fields));
        assertEquals(1234567, SocketOwners.startTicksOf("42 (a) (b c)" + fields), "a name of spaces and parentheses");
        assertEquals(1234567, SocketOwners.startTicksOf("42 ())" + fields));
        for (String garbage : new String[] {"", "42 java S 1", "42 (java) S 1 2 3", "42 (java)" + fields.replace("1234567", "x"),
            "42 (java)" + fields.replace(" 1234567 19 20", "")}) {
            assertEquals(-1, SocketOwners.startTicksOf(garbage), garbage);
        }
    }

    @Test
    void aProcessStartTimeTellsAProcessFromALaterOneOfTheSamePid() throws Exception {
        long self = ProcessHandle.current().pid();
        long started = SocketOwners.startTicks(self);
        assertTrue(started > 0, "this process's start: " + started);
        assertEquals(started, SocketOwners.startTicks(self), "read twice");
        Thread.sleep(50); // a clock tick is 10 ms
        Process later = new ProcessBuilder("sleep", "30").start();
        try {
            assertTrue(SocketOwners.startTicks(later.pid()) > started, "a process started later");
        } finally {
            later.destroy();
        }
        assertEquals(-1, SocketOwners.startTicks(Long.MAX_VALUE), "no such process");
        assertEquals(-1, SocketOwners.startTicks(-1), "no such pid");
    }

    @Test
    void onlyTheProcessThatListensHoldsThePort() throws Exception {
        long self = ProcessHandle.current().pid();
        int port;
        try (ServerSocket server = new ServerSocket(0)) {
            port = server.getLocalPort();
            assertTrue(SocketOwners.listensOn(self, port));
            Process other = new ProcessBuilder("sleep", "30").start();
            try {
                assertFalse(SocketOwners.listensOn(other.pid(), port));
            } finally {
                other.destroy();
            }
            // A connected socket on the port is not a listener of another port.
            try (Socket client = new Socket("127.0.0.1", port)) {
                assertFalse(SocketOwners.listensOn(self, client.getLocalPort()));
            }
        }
        assertFalse(SocketOwners.listensOn(self, port), "closed");
        assertFalse(SocketOwners.listensOn(Long.MAX_VALUE, port), "no such process");
    }
}
