package io.fastrmi.fastsockets.rmi;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.IntSupplier;

/**
 * The {@link BufferedInputStream} RMI reads a connection through: it takes up to 8 KiB from the
 * socket at a time, so a read that goes past it to the socket must first know how much it holds.
 * Its fields are read through {@code java.io}, which only the agent opens to FastRMI; where it is
 * closed nothing is known, and nothing goes past the buffer.
 */
final class RmiInputBuffer {

    private static final VarHandle IN;
    private static final VarHandle POS;
    private static final VarHandle COUNT;

    static {
        VarHandle in = null;
        VarHandle pos = null;
        VarHandle count = null;
        try {
            MethodHandles.Lookup filter = MethodHandles.privateLookupIn(FilterInputStream.class, MethodHandles.lookup());
            MethodHandles.Lookup buffered = MethodHandles.privateLookupIn(BufferedInputStream.class, MethodHandles.lookup());
            in = filter.findVarHandle(FilterInputStream.class, "in", InputStream.class);
            pos = buffered.findVarHandle(BufferedInputStream.class, "pos", int.class);
            count = buffered.findVarHandle(BufferedInputStream.class, "count", int.class);
        } catch (ReflectiveOperationException | RuntimeException closed) {
            in = pos = count = null;
        }
        IN = in;
        POS = pos;
        COUNT = count;
    }

    private RmiInputBuffer() {
    }

    /**
     * How many bytes {@code source} holds, when it is RMI's buffer straight over
     * {@code socketInput} (or is {@code socketInput}, which holds none); else null.
     */
    static IntSupplier held(InputStream source, InputStream socketInput) {
        if (source == socketInput) {
            return NONE_HELD;
        }
        if (IN == null || source.getClass() != BufferedInputStream.class || IN.get(source) != socketInput) {
            return null;
        }
        return new Held(source);
    }

    // Classes, not lambdas: each lambda costs the JVM a class spun at its first use (StartupIT).
    private static final IntSupplier NONE_HELD = new IntSupplier() {
        @Override
        public int getAsInt() {
            return 0;
        }
    };

    /** What RMI's buffer holds. RMI's reader thread is the only one to read it: its fields need no lock here. */
    private static final class Held implements IntSupplier {
        private final InputStream buffer;

        Held(InputStream buffer) {
            this.buffer = buffer;
        }

        @Override
        public int getAsInt() {
            return (int) COUNT.get(buffer) - (int) POS.get(buffer);
        }
    }
}
