package io.fastrmi.netpipe.dirmi;

import io.fastrmi.netpipe.bench.objects.Int32;
import io.fastrmi.netpipe.bench.objects.Int4Null2;
import io.fastrmi.netpipe.bench.objects.Node;
import java.io.IOException;
import java.util.Set;
import org.cojen.dirmi.Pipe;
import org.cojen.dirmi.Serializer;

/**
 * The serializers a Dirmi user writes for the kernels' objects (Dirmi does not use Java serialization;
 * its {@code Serializer.simple} takes only public fields): their fields, nothing else.
 */
final class DirmiSerializers {

    private DirmiSerializers() {
    }

    static Serializer[] all() {
        return new Serializer[] {new NodeSerializer(), new Int32Serializer(), new Int4Null2Serializer()};
    }

    private static final class NodeSerializer implements Serializer {
        @Override
        public Set<Class<?>> supportedTypes() {
            return Set.of(Node.class);
        }

        @Override
        public void write(Pipe pipe, Object obj) throws IOException {
            Node node = (Node) obj;
            pipe.writeInt(node.value());
            pipe.writeObject(node.left());
            pipe.writeObject(node.right());
        }

        @Override
        public Object read(Pipe pipe) throws IOException {
            int value = pipe.readInt();
            return new Node(value, (Node) pipe.readObject(), (Node) pipe.readObject());
        }
    }

    private static final class Int32Serializer implements Serializer {
        @Override
        public Set<Class<?>> supportedTypes() {
            return Set.of(Int32.class);
        }

        @Override
        public void write(Pipe pipe, Object obj) throws IOException {
            for (int field : ((Int32) obj).toArray()) {
                pipe.writeInt(field);
            }
        }

        @Override
        public Object read(Pipe pipe) throws IOException {
            int[] fields = new int[32];
            for (int i = 0; i < fields.length; i++) {
                fields[i] = pipe.readInt();
            }
            return Int32.fromArray(fields);
        }
    }

    private static final class Int4Null2Serializer implements Serializer {
        @Override
        public Set<Class<?>> supportedTypes() {
            return Set.of(Int4Null2.class);
        }

        @Override
        public void write(Pipe pipe, Object obj) throws IOException {
            for (int field : ((Int4Null2) obj).ints()) {
                pipe.writeInt(field);
            }
            pipe.writeNull();
            pipe.writeNull();
        }

        @Override
        public Object read(Pipe pipe) throws IOException {
            Int4Null2 o = Int4Null2.of(pipe.readInt(), pipe.readInt(), pipe.readInt(), pipe.readInt());
            pipe.readObject();
            pipe.readObject();
            return o;
        }
    }
}
