package io.fastrmi.leanbench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Write plus read of one object, as one call on a connection: nanoseconds per round trip. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// The fork runs under the agent, with the flags of the Makefile's LEAN_BENCH_JVM (make bench-lean passes them).
@Fork(1)
public class LeanCodecBench {

    @Param({"int32", "int4null2", "tree15", "float50", "float5000", "order3k"})
    public String object;

    @Param({"lean", "lean-core", "jdk", "kryo", "fory"})
    public String codec;

    private Codecs.Codec serializer;
    private Object value;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        serializer = Codecs.named(codec);
        value = Codecs.OBJECTS.get(object).get();
        serializer.roundTrip(value); // the first call carries the descriptors
    }

    @Benchmark
    public Object roundTrip() throws Exception {
        serializer.roundTrip(value);
        return serializer.lastRead();
    }
}
