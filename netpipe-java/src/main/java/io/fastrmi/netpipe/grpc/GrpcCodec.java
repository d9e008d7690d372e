package io.fastrmi.netpipe.grpc;

import io.fastrmi.netpipe.bench.objects.Int32;
import io.fastrmi.netpipe.bench.objects.Int4Null2;
import io.fastrmi.netpipe.bench.objects.Node;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * What gRPC carries for netpipe-java's kernels: the objects' fields, as a protobuf message of them
 * would (a tag, then the fields; arrays in bulk), written by hand so that no code generator is needed.
 * Only the kernels' types: anything else, or a malformed message, is an error that names it.
 */
final class GrpcCodec implements MethodDescriptor.Marshaller<Object> {

    static final GrpcCodec INSTANCE = new GrpcCodec();

    /** Java's null on the wire (gRPC sends no null message): encoded as the null tag, decoded back to this. */
    static final Object NOTHING = new Object() {
        @Override
        public String toString() {
            return "nothing";
        }
    };

    private static final int NULL = 0;
    private static final int INT32 = 1;
    private static final int INT4NULL2 = 2;
    private static final int NODE = 3;
    private static final int FLOATS = 4;
    private static final int BYTES = 5;
    private static final int INTS = 6;
    private static final int DOUBLES = 7;
    private static final int MAX_DEPTH = 64;

    @Override
    public InputStream stream(Object value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            write(out, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ByteArrayInputStream(bytes.toByteArray());
    }

    @Override
    public Object parse(InputStream stream) {
        // the whole message first (gRPC bounds it), so that no length read off the wire can ask for more than came
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stream.readAllBytes()))) {
            Object value = read(in, 0);
            return value == null ? NOTHING : value;
        } catch (IOException e) {
            throw new IllegalArgumentException("a malformed netpipe gRPC message: " + e.getMessage(), e);
        }
    }

    private static void write(DataOutputStream out, Object value) throws IOException {
        if (value == null || value == NOTHING) {
            out.writeByte(NULL);
        } else if (value instanceof Int32 o) {
            out.writeByte(INT32);
            for (int field : o.toArray()) {
                out.writeInt(field);
            }
        } else if (value instanceof Int4Null2 o) {
            out.writeByte(INT4NULL2);
            for (int field : o.ints()) {
                out.writeInt(field);
            }
        } else if (value instanceof Node node) {
            out.writeByte(NODE);
            out.writeInt(node.value());
            write(out, node.left());
            write(out, node.right());
        } else if (value instanceof float[] floats) {
            out.writeByte(FLOATS);
            out.writeInt(floats.length);
            for (float f : floats) {
                out.writeFloat(f);
            }
        } else if (value instanceof byte[] array) {
            out.writeByte(BYTES);
            out.writeInt(array.length);
            out.write(array);
        } else if (value instanceof int[] ints) {
            out.writeByte(INTS);
            out.writeInt(ints.length);
            for (int i : ints) {
                out.writeInt(i);
            }
        } else if (value instanceof double[] doubles) {
            out.writeByte(DOUBLES);
            out.writeInt(doubles.length);
            for (double d : doubles) {
                out.writeDouble(d);
            }
        } else {
            throw new IllegalArgumentException("netpipe's gRPC peer carries no " + value.getClass().getName());
        }
    }

    private static Object read(DataInputStream in, int depth) throws IOException {
        if (depth > MAX_DEPTH) {
            throw new IOException("nodes nested deeper than " + MAX_DEPTH);
        }
        int tag = in.readUnsignedByte();
        switch (tag) {
            case NULL:
                return null;
            case INT32: {
                int[] fields = new int[32];
                for (int i = 0; i < fields.length; i++) {
                    fields[i] = in.readInt();
                }
                return Int32.fromArray(fields);
            }
            case INT4NULL2:
                return Int4Null2.of(in.readInt(), in.readInt(), in.readInt(), in.readInt());
            case NODE: {
                int value = in.readInt();
                Object left = read(in, depth + 1);
                Object right = read(in, depth + 1);
                if (!(left == null || left instanceof Node) || !(right == null || right instanceof Node)) {
                    throw new IOException("a node's child is not a node");
                }
                return new Node(value, (Node) left, (Node) right);
            }
            case FLOATS: {
                float[] floats = new float[length(in, Float.BYTES)];
                for (int i = 0; i < floats.length; i++) {
                    floats[i] = in.readFloat();
                }
                return floats;
            }
            case BYTES: {
                byte[] array = new byte[length(in, 1)];
                in.readFully(array);
                return array;
            }
            case INTS: {
                int[] ints = new int[length(in, Integer.BYTES)];
                for (int i = 0; i < ints.length; i++) {
                    ints[i] = in.readInt();
                }
                return ints;
            }
            case DOUBLES: {
                double[] doubles = new double[length(in, Double.BYTES)];
                for (int i = 0; i < doubles.length; i++) {
                    doubles[i] = in.readDouble();
                }
                return doubles;
            }
            default:
                throw new IOException("unknown tag " + tag);
        }
    }

    /** An array's length, no more elements of {@code elementBytes} than the message has bytes left. */
    private static int length(DataInputStream in, int elementBytes) throws IOException {
        int length = in.readInt();
        int left = in.available(); // exact: the message is in memory
        if (length < 0 || (long) length * elementBytes > left) {
            throw new IOException("an array length of " + length + " with " + left + " bytes left");
        }
        return length;
    }
}
