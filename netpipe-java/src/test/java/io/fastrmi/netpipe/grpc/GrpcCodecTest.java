package io.fastrmi.netpipe.grpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.netpipe.bench.objects.Int32;
import io.fastrmi.netpipe.bench.objects.Int4Null2;
import io.fastrmi.netpipe.bench.objects.Node;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class GrpcCodecTest {

    private static Object roundTrip(Object value) {
        return GrpcCodec.INSTANCE.parse(GrpcCodec.INSTANCE.stream(value));
    }

    @Test
    void carriesTheKernelsObjects() {
        assertEquals(Node.fullTree(4, 1), roundTrip(Node.fullTree(4, 1)));
        assertEquals(Int32.numbered(5), roundTrip(Int32.numbered(5)));
        assertEquals(Int4Null2.numbered(5), roundTrip(Int4Null2.numbered(5)));
        assertArrayEquals(new float[] {1.5f, -2}, (float[]) roundTrip(new float[] {1.5f, -2}));
        assertArrayEquals(new double[] {1e300}, (double[]) roundTrip(new double[] {1e300}));
        assertArrayEquals(new int[] {7, 8}, (int[]) roundTrip(new int[] {7, 8}));
        assertSame(GrpcCodec.NOTHING, roundTrip(null), "null crosses as nothing");
    }

    @Test
    void hostileBytesGiveAClearErrorNeverAHugeAllocation() throws IOException {
        Random random = new Random(13);
        List<Object> seeds = List.of(Node.fullTree(4, 1), Int32.numbered(1), new byte[40], new double[3]);
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = GrpcCodec.INSTANCE.stream(seeds.get(i % seeds.size())).readAllBytes();
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
            }
            InputStream in = new ByteArrayInputStream(bytes, 0, random.nextInt(bytes.length + 1));
            try {
                GrpcCodec.INSTANCE.parse(in);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().startsWith("a malformed netpipe gRPC message"), e.getMessage());
            }
        }
    }
}
