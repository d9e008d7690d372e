package io.fastrmi.leanbench;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.fastrmi.agent.lean.RmiLeanStreams;
import io.fastrmi.optrmi.lean.Corpus;
import io.fastrmi.optrmi.lean.LeanObjectInputStream;
import io.fastrmi.optrmi.lean.LeanObjectOutputStream;
import io.fastrmi.optrmi.lean.LeanReader;
import io.fastrmi.optrmi.lean.LeanWriter;
import io.fastrmi.optrmi.lean.MemoryWire;
import io.fastrmi.optrmi.lean.RmiClassResolver;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * The serializers compared, each as a call on one connection sees it: write an object, read it
 * back, repeatedly. The lean format keeps its writer and reader (their class tables) across calls,
 * through the streams RMI gets (the JVM runs under the agent: the Makefile's LEAN_BENCH_JVM);
 * JDK serialization makes new streams per call, as RMI does; Kryo and Fory keep their instances.
 */
final class Codecs {

    /** The objects of the benchmark: KaRMI's (seed 001) and a 3 KB object with several fields. */
    static final Map<String, Supplier<Object>> OBJECTS = new LinkedHashMap<>();

    static {
        OBJECTS.put("int32", Corpus.Int32::new);
        OBJECTS.put("int4null2", Corpus.Int4Null2::new);
        OBJECTS.put("tree15", () -> Corpus.Tree.of(15));
        OBJECTS.put("float50", () -> Corpus.floats(50));
        OBJECTS.put("float5000", () -> Corpus.floats(5000));
        OBJECTS.put("order3k", Corpus::order);
    }

    interface Codec {
        /** Writes obj and reads it back; returns the bytes it took. */
        int roundTrip(Object obj) throws Exception;

        Object lastRead();
    }

    static Codec named(String name) {
        return switch (name) {
            case "lean" -> new Lean();
            case "lean-core" -> new LeanCore();
            case "jdk" -> new Jdk();
            case "kryo" -> new KryoCodec();
            case "fory" -> new ForyCodec();
            default -> throw new IllegalArgumentException(name);
        };
    }

    /** The lean format through the streams RMI itself gets on a lean connection (so under the agent). */
    static final class Lean implements Codec {
        final RmiLeanStreams streams;
        Object last;

        Lean() {
            try {
                streams = new RmiLeanStreams();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        @Override
        public int roundTrip(Object obj) throws Exception {
            streams.beginOutput().writeObject(obj);
            int bytes = streams.endOutput();
            last = streams.beginInput().readObject();
            streams.endInput();
            return bytes;
        }

        @Override
        public Object lastRead() {
            return last;
        }
    }

    /**
     * The lean writer and reader alone, through optrmi's test pair of streams (no RMI stream, no
     * agent advice): beside "lean", what RMI's own streams add to a call.
     */
    static final class LeanCore implements Codec {
        final MemoryWire wire = new MemoryWire();
        final LeanWriter writer = new LeanWriter(wire.out, null);
        final LeanReader reader = new LeanReader(wire.in, new RmiClassResolver());
        Object last;

        @Override
        public int roundTrip(Object obj) throws Exception {
            wire.clear();
            LeanObjectOutputStream out = new LeanObjectOutputStream(writer);
            out.writeObject(obj);
            out.endMessage();
            int bytes = wire.written();
            LeanObjectInputStream in = new LeanObjectInputStream(reader);
            last = in.readObject();
            in.endMessage();
            return bytes;
        }

        @Override
        public Object lastRead() {
            return last;
        }
    }

    static final class Jdk implements Codec {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
        Object last;

        @Override
        public int roundTrip(Object obj) throws IOException, ClassNotFoundException {
            bytes.reset();
            ObjectOutputStream out = new ObjectOutputStream(bytes);
            out.writeObject(obj);
            out.flush();
            ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()));
            last = in.readObject();
            return bytes.size();
        }

        @Override
        public Object lastRead() {
            return last;
        }
    }

    static final class KryoCodec implements Codec {
        final Kryo kryo = new Kryo();
        final Output output = new Output(1 << 16, -1);
        final Input input = new Input();
        Object last;

        KryoCodec() {
            kryo.setRegistrationRequired(false);
            kryo.setReferences(true);
            kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        }

        @Override
        public int roundTrip(Object obj) {
            output.reset();
            kryo.writeClassAndObject(output, obj);
            input.setBuffer(output.getBuffer(), 0, output.position());
            last = kryo.readClassAndObject(input);
            return output.position();
        }

        @Override
        public Object lastRead() {
            return last;
        }
    }

    static final class ForyCodec implements Codec {
        final Fory fory = Fory.builder().withLanguage(Language.JAVA).requireClassRegistration(false)
                .withRefTracking(true).build();
        Object last;

        @Override
        public int roundTrip(Object obj) {
            byte[] bytes = fory.serialize(obj);
            last = fory.deserialize(bytes);
            return bytes.length;
        }

        @Override
        public Object lastRead() {
            return last;
        }
    }

    private Codecs() {
    }
}
