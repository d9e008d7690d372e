package io.fastrmi.agent.nativeit;

import io.fastrmi.agent.lean.RmiLeanStreams;
import io.fastrmi.optrmi.lean.Corpus;
import java.io.ByteArrayInputStream;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Run under the agent (LeanStreamsIT): every shape of the corpus through the lean streams RMI
 * itself gets ({@link RmiLeanStreams}), twice (the second call as a repeated one: its classes known
 * by id), read back as the JDK's serialization reads it back; then a JEP 290 filter set on RMI's
 * stream, as RMI sets its own, rejecting a graph too deep as the JDK's stream rejects it. Prints
 * {@code SHAPES n}, {@code FILTER rejected ...}, and {@code DIFFERS name} for each shape that did not.
 */
public final class LeanStreamsMain {

    private LeanStreamsMain() {
    }

    public static void main(String[] args) throws Exception {
        RmiLeanStreams streams = new RmiLeanStreams();
        List<String> differs = new ArrayList<>();
        List<Corpus.Shape> shapes = Corpus.shapes();
        for (Corpus.Shape shape : shapes) {
            Object obj = shape.make().get(); // one object for both: an exception's stack trace is part of it
            byte[] expected = Corpus.jdkBytes(Corpus.jdkRoundTrip(obj));
            for (int call = 0; call < 2; call++) {
                if (!Arrays.equals(expected, Corpus.jdkBytes(roundTrip(streams, obj)))) {
                    differs.add(shape.name() + " (call " + (call + 1) + ")");
                }
            }
        }
        System.out.println("SHAPES " + shapes.size());
        differs.forEach(name -> System.out.println("DIFFERS " + name));
        System.out.println("FILTER " + filterRejection());
    }

    private static Object roundTrip(RmiLeanStreams streams, Object obj) throws Exception {
        streams.beginOutput().writeObject(obj);
        streams.endOutput();
        Object read = streams.beginInput().readObject();
        streams.endInput();
        return read;
    }

    /** What the JDK's stream and RMI's lean stream each say to a tree deeper than maxdepth=3. */
    private static String filterRejection() throws Exception {
        Object deep = Corpus.Tree.of(15);
        ObjectInputFilter filter = ObjectInputFilter.Config.createFilter("maxdepth=3");
        String jdk = rejection(() -> {
            ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(Corpus.jdkBytes(deep)));
            in.setObjectInputFilter(filter);
            return in.readObject();
        });
        RmiLeanStreams streams = new RmiLeanStreams();
        streams.beginOutput().writeObject(deep);
        streams.endOutput();
        String lean = rejection(() -> {
            ObjectInputStream in = streams.beginInput();
            in.setObjectInputFilter(filter);
            return in.readObject();
        });
        return (jdk.equals(lean) ? "rejected as the JDK: " : "differs from the JDK: jdk ") + jdk + (jdk.equals(lean) ? "" : ", lean " + lean);
    }

    private interface Read {
        Object read() throws Exception;
    }

    private static String rejection(Read read) {
        try {
            return "read " + read.read();
        } catch (InvalidClassException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        } catch (Exception e) {
            return e.toString();
        }
    }
}
