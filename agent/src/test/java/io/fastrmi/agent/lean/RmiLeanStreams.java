package io.fastrmi.agent.lean;

import io.fastrmi.optrmi.lean.LeanObjectInput;
import io.fastrmi.optrmi.lean.LeanObjectOutput;
import io.fastrmi.optrmi.lean.LeanReader;
import io.fastrmi.optrmi.lean.LeanRuntime;
import io.fastrmi.optrmi.lean.LeanWriter;
import io.fastrmi.optrmi.lean.MemoryWire;
import io.fastrmi.optrmi.lean.RmiClassResolver;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.Consumer;

/**
 * The lean-format streams RMI itself is given on a lean connection (the agent's
 * {@code LeanConnectionOutputStream} and {@code LeanConnectionInputStream}, defined in java.rmi's
 * package as the agent defines them), over memory rather than an RMI connection: each message
 * written is then read back. What the lean round-trip check and {@code make bench-lean} drive. Their final
 * {@code writeObject}/{@code readObject} reach the lean format only through the agent's advice, so
 * the JVM runs under the agent, with {@link #JVM_ARGS}.
 */
public final class RmiLeanStreams {

    /** What this class needs beyond the agent: to define classes in java.rmi's package, as the agent does. */
    public static final String JVM_ARGS = "--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED";

    private static final String PATCH = "META-INF/fastrmi/rmi-patch/sun/rmi/transport/";

    /** Made once: the streams' constructors, and the package-private ends of a message RMI calls. */
    private static final class Rmi {
        static final MethodHandle NEW_OUTPUT;
        static final MethodHandle NEW_INPUT;
        static final MethodHandle OUTPUT_DONE;
        static final MethodHandle INPUT_DONE;

        static {
            try {
                MethodHandles.Lookup rmi = MethodHandles.privateLookupIn(
                        Class.forName("sun.rmi.transport.StreamRemoteCall", false, null), MethodHandles.lookup());
                define(rmi, "LeanConnectionOutputStream$NoConnection");
                Class<?> output = define(rmi, "LeanConnectionOutputStream");
                Class<?> input = define(rmi, "LeanConnectionInputStream");
                Class<?> connection = Class.forName("sun.rmi.transport.Connection", false, null);
                NEW_OUTPUT = rmi.findConstructor(output, MethodType.methodType(void.class, LeanWriter.class, boolean.class, Runnable.class));
                NEW_INPUT = rmi.findConstructor(input, MethodType.methodType(void.class, LeanReader.class, Consumer.class));
                OUTPUT_DONE = rmi.findVirtual(output, "done", MethodType.methodType(void.class));
                INPUT_DONE = rmi.findVirtual(input, "done", MethodType.methodType(void.class, connection));
            } catch (ReflectiveOperationException | IOException e) {
                throw new IllegalStateException("the lean streams RMI gets cannot be made here (run under the agent, with "
                        + JVM_ARGS + "): " + e, e);
            }
        }

        /** The class {@code sun.rmi.transport.NAME}: the agent's, if it defined it already, else from the agent jar. */
        private static Class<?> define(MethodHandles.Lookup rmi, String name) throws IOException, IllegalAccessException {
            try {
                return Class.forName("sun.rmi.transport." + name, false, null);
            } catch (ClassNotFoundException notYet) {
                try (InputStream bytes = ClassLoader.getSystemResourceAsStream(PATCH + name + ".class")) {
                    if (bytes == null) {
                        throw new IOException(PATCH + name + ".class is not on the class path: is the agent attached?");
                    }
                    return rmi.defineClass(bytes.readAllBytes());
                }
            }
        }
    }

    private final MemoryWire wire = new MemoryWire();
    private final LeanWriter writer;
    private final LeanReader reader;
    private final ObjectOutputStream output;
    private final ObjectInputStream input;

    /** Streams over memory, with RMI's class resolution and RMI's renewal of the serial filter per call. */
    public RmiLeanStreams() throws IOException {
        writer = new LeanWriter(wire.out, null);
        reader = new LeanReader(wire.in, new RmiClassResolver());
        output = call(() -> (ObjectOutputStream) Rmi.NEW_OUTPUT.invoke(writer, false, (Runnable) () -> { }));
        input = call(() -> (ObjectInputStream) Rmi.NEW_INPUT.invoke(reader, (Consumer<Object>) stream -> LeanRuntime.renewFilter((ObjectInputStream) stream)));
    }

    /** A message begins: the stream RMI writes a call or a reply with. */
    public ObjectOutputStream beginOutput() throws IOException {
        wire.clear();
        ((LeanObjectOutput) output).beginMessage();
        return output;
    }

    /** The message ends as RMI ends it (its release of the stream), and goes out; returns its size on the wire. */
    public int endOutput() throws IOException {
        call(() -> (Void) Rmi.OUTPUT_DONE.invoke(output));
        writer.flush();
        return wire.written();
    }

    /** A message is read: the stream RMI reads a call or a reply with. */
    public ObjectInputStream beginInput() throws IOException {
        ((LeanObjectInput) input).beginMessage();
        return input;
    }

    /** The message is done, as RMI releases it (what was not read of it is skipped). */
    public void endInput() throws IOException {
        call(() -> (Void) Rmi.INPUT_DONE.invoke(input, null)); // no DGC ack is due: no connection is needed
        if (reader.isBroken()) {
            throw new IOException("the lean input failed: its connection would close");
        }
    }

    private interface Call<T> {
        T run() throws Throwable;
    }

    private static <T> T call(Call<T> call) throws IOException {
        try {
            return call.run();
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }
}
