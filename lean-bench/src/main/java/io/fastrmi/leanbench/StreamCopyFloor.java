package io.fastrmi.leanbench;

import io.fastrmi.optrmi.lean.MemoryWire;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a {@code float[]} costs any codec that goes through an {@code OutputStream} and an
 * {@code InputStream}, as {@link LeanCodecBench} does, with nothing else: the elements into the
 * writer's bytes, those to the stream, the stream's into the reader's bytes, those into a new array
 * (the lean format's four copies and its allocation, without its framing). A codec cannot do less
 * through byte streams; the gap between this and the lean row is all the format adds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StreamCopyFloor {

    @Param({"50", "5000"})
    public int floats;

    private final MemoryWire wire = new MemoryWire();
    private float[] value;
    private byte[] writerBytes;
    private byte[] readerBytes;

    @Setup
    public void setUp() {
        value = new float[floats];
        for (int i = 0; i < floats; i++) {
            value[i] = i * 0.5f;
        }
        writerBytes = new byte[4 * floats];
        readerBytes = new byte[4 * floats];
    }

    @Benchmark
    public float[] roundTrip() throws java.io.IOException {
        int bytes = 4 * floats;
        wire.clear();
        ByteBuffer.wrap(writerBytes).order(ByteOrder.nativeOrder()).asFloatBuffer().put(value);
        wire.out.write(writerBytes, 0, bytes);
        int read = 0;
        while (read < bytes) {
            read += wire.in.read(readerBytes, read, bytes - read);
        }
        float[] back = new float[floats];
        ByteBuffer.wrap(readerBytes).order(ByteOrder.nativeOrder()).asFloatBuffer().get(back);
        return back;
    }
}
