package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The writer's object → handle table: right through its growth, and grown only once for a run of large messages. */
class IdentityHandlesTest {

    private static Object[] objects(int n) {
        Object[] objects = new Object[n];
        for (int i = 0; i < n; i++) {
            objects[i] = new Object();
        }
        return objects;
    }

    private static void putAll(IdentityHandles handles, Object[] objects) {
        for (int i = 0; i < objects.length; i++) {
            handles.put(objects[i], i);
        }
    }

    @Test
    void everyObjectKeepsItsHandleThroughTheGrowth() {
        IdentityHandles handles = new IdentityHandles();
        Object[] objects = objects(10_000);
        putAll(handles, objects);
        for (int i = 0; i < objects.length; i++) {
            assertEquals(i, handles.get(objects[i]));
        }
        assertEquals(-1, handles.get(new Object()));
        handles.put(objects[7], 99); // a handle given again replaces the first
        assertEquals(99, handles.get(objects[7]));
    }

    @Test
    void aRunOfLargeMessagesGrowsTheTableOnce() {
        IdentityHandles handles = new IdentityHandles();
        putAll(handles, objects(5_000));
        long grown = handles.rehashes();
        int capacity = handles.capacity();
        for (int message = 0; message < 5; message++) {
            handles.clear();
            Object[] next = objects(5_000);
            putAll(handles, next);
            assertEquals(grown, handles.rehashes(), "rehashes after message " + message);
            assertEquals(message, handles.get(next[message]));
        }
        assertEquals(capacity, handles.capacity());
    }

    @Test
    void aClearedTableForgetsItsObjects() {
        IdentityHandles handles = new IdentityHandles();
        Object[] first = objects(5_000);
        putAll(handles, first);
        handles.clear();
        for (Object obj : first) {
            assertEquals(-1, handles.get(obj));
        }
    }

    @Test
    void aLargeTableGoesAfterARunOfSmallMessages() {
        IdentityHandles handles = new IdentityHandles();
        putAll(handles, objects(5_000));
        int grown = handles.capacity();
        for (int message = 0; message < 15; message++) {
            handles.clear();
            putAll(handles, objects(10));
        }
        handles.clear();
        assertEquals(grown, handles.capacity(), "kept through 15 small messages");
        putAll(handles, objects(10));
        handles.clear();
        assertEquals(64, handles.capacity(), "shrunk after the 16th");
    }
}
