package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * JEP 290: a serial filter set on the stream decides on the lean path as on a JDK stream, for
 * every pair of filter and object below (classes, superclasses, arrays and their lengths, proxies,
 * replacements). Limits on depth, references and stream bytes count the lean format's own objects
 * and bytes, so they are not compared here.
 */
class LeanFilterTest {

    static final String LEAN = "io.fastrmi.optrmi.lean.";

    static List<Object> objects() {
        List<Object> objects = new ArrayList<>();
        objects.add(new Corpus.Point(1, 2));
        objects.add(new int[100]);
        objects.add(new int[5]);
        objects.add(new ArrayList<>(List.of(new Corpus.Point(3, 4))));
        objects.add(Map.of("a", 1));
        objects.add(Corpus.Color.RED);
        objects.add(Corpus.Tree.of(15));
        objects.add(new Corpus.Level3(1, 2, 3));
        objects.add(new Corpus.Line(new Corpus.Point(0, 0), new Corpus.Point(1, 1), "l", new int[20]));
        objects.add("just a string");
        objects.add(new Object[] {new Corpus.Point(5, 6), new String[12]});
        objects.add(Proxy.newProxyInstance(LeanFilterTest.class.getClassLoader(), new Class<?>[] {Corpus.Greeter.class},
                new Corpus.FixedAnswer("hi")));
        objects.add(new Corpus.Replaced(4));
        objects.add(new IllegalStateException("x", new RuntimeException("y")));
        objects.add(new Corpus.Ext(1, new Corpus.Point(7, 7)));
        return objects;
    }

    static List<String> filters() {
        return List.of(
                "!" + LEAN + "Corpus$Point",
                "maxarray=10",
                "maxarray=100",
                "java.**;!*",
                "io.fastrmi.**;!*",
                "java.**;io.fastrmi.**;!*",
                "!java.util.ArrayList",
                "!" + LEAN + "Corpus$Level1",
                "!" + LEAN + "Corpus$Greeter",
                "!java.lang.reflect.Proxy",
                "!" + LEAN + "Corpus$ReplacedForm",
                "!" + LEAN + "Corpus$Replaced",
                "!java.lang.Throwable",
                "!java.lang.Integer",
                "!java.lang.String",
                "[I;!*",
                "!java.lang.Enum");
    }

    @Test
    void everyFilterDecidesAsOnAJdkStream() throws Exception {
        int rejected = 0;
        int compared = 0;
        for (String pattern : filters()) {
            for (Object obj : objects()) {
                String jdk = jdkDecision(obj, pattern);
                String lean = leanDecision(obj, pattern);
                assertEquals(jdk, lean, "filter " + pattern + " on " + obj.getClass().getName());
                compared++;
                rejected += jdk.equals("accepted") ? 0 : 1;
            }
        }
        // The matrix must exercise both outcomes.
        org.junit.jupiter.api.Assertions.assertTrue(rejected > 20 && rejected < compared - 20, rejected + " of " + compared);
    }

    private static String jdkDecision(Object obj, String pattern) throws Exception {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(LeanPipe.jdkBytes(obj)))) {
            in.setObjectInputFilter(ObjectInputFilter.Config.createFilter(pattern));
            in.readObject();
            return "accepted";
        } catch (InvalidClassException e) {
            return e.getMessage();
        }
    }

    private static String leanDecision(Object obj, String pattern) throws Exception {
        LeanPipe pipe = new LeanPipe();
        pipe.send(obj);
        LeanObjectInputStream in = new LeanObjectInputStream(LeanPipe.reader(pipe.bytes()));
        in.setObjectInputFilter(ObjectInputFilter.Config.createFilter(pattern));
        try {
            in.readObject();
            return "accepted";
        } catch (InvalidClassException e) {
            return e.getMessage();
        }
    }
}
