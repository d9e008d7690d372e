package io.fastrmi.optrmi.lean;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** One direction of a connection held in memory: messages written, then read back in order. */
final class LeanPipe {

    final ByteArrayOutputStream wire = new ByteArrayOutputStream();
    final LeanWriter writer = new LeanWriter(wire, null);
    final List<Integer> messageEnds = new ArrayList<>();

    /** Writes one message holding the objects; returns its size on the wire. */
    int send(Object... objects) throws IOException {
        int before = wire.size();
        LeanObjectOutputStream out = new LeanObjectOutputStream(writer);
        for (Object o : objects) {
            out.writeObject(o);
        }
        out.endMessage();
        messageEnds.add(wire.size());
        return wire.size() - before;
    }

    byte[] bytes() {
        return wire.toByteArray();
    }

    /** A reader over what was written. */
    static LeanReader reader(byte[] wire) {
        return new LeanReader(new ByteArrayInputStream(wire), resolver());
    }

    /** The test classes' resolver. */
    static ClassResolver resolver() {
        return new ClassLoaderResolver(LeanPipe.class.getClassLoader());
    }

    /** Reads the next message's n objects. */
    static Object[] receive(LeanReader reader, int n) throws IOException, ClassNotFoundException {
        LeanObjectInputStream in = new LeanObjectInputStream(reader);
        Object[] objects = new Object[n];
        for (int i = 0; i < n; i++) {
            objects[i] = in.readObject();
        }
        in.endMessage();
        return objects;
    }

    static Object leanRoundTrip(Object obj) throws IOException, ClassNotFoundException {
        LeanPipe pipe = new LeanPipe();
        pipe.send(obj);
        return receive(reader(pipe.bytes()), 1)[0];
    }

    static byte[] jdkBytes(Object obj) throws IOException {
        return Corpus.jdkBytes(obj);
    }

    static Object jdkRoundTrip(Object obj) throws IOException, ClassNotFoundException {
        return Corpus.jdkRoundTrip(obj);
    }
}
