package io.fastrmi.agent.bootstrap;

import io.fastrmi.fastsockets.handshake.Privileged;
import io.fastrmi.fastsockets.rmi.FastSocket;
import io.fastrmi.optrmi.lean.LeanObjectInput;
import io.fastrmi.optrmi.lean.LeanObjectOutput;
import io.fastrmi.optrmi.lean.LeanReader;
import io.fastrmi.optrmi.lean.LeanRuntime;
import io.fastrmi.optrmi.lean.LeanWriter;
import io.fastrmi.optrmi.lean.RmiClassResolver;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.net.Socket;
import java.rmi.Remote;
import java.rmi.server.RMIClassLoader;
import java.rmi.server.RemoteStub;
import java.util.function.Consumer;

/**
 * One RMI connection's lean-format streams: its {@link LeanWriter} and {@link LeanReader}, and the
 * two marshal streams RMI is given on every call (the classes in the agent's {@code src/rmi-patch},
 * defined in java.rmi's package on first use). Kept on the connection's {@link FastSocket}. The
 * advice on {@code StreamRemoteCall} asks {@link #beginOutput}/{@link #beginInput} for a call's
 * streams: null leaves the call to stock RMI (a connection not negotiated lean).
 */
public final class LeanStreams {

    /** Made once, when the first lean connection makes its streams. */
    static final class Rmi {
        static final MethodHandle CONNECTION_OUTPUT;
        static final MethodHandle CONNECTION_INPUT;
        static final MethodHandle NEW_OUTPUT;
        static final MethodHandle NEW_INPUT;
        static final VarHandle DGC_ACK_NEEDED;
        /** {@code ObjectTable.getTarget(Remote)}: the export of an object, or null (as Object). */
        static final MethodHandle TARGET_OF;
        /** {@code Target.getStub()} of such an export. */
        static final MethodHandle STUB_OF;

        static {
            String unavailable = LeanRuntime.unavailableReason();
            if (unavailable != null) {
                throw new IllegalStateException("FastRMI cannot put the lean format under RMI: " + unavailable);
            }
            try {
                Class<?> call = Class.forName("sun.rmi.transport.StreamRemoteCall", false, null);
                Class<?> connection = Class.forName("sun.rmi.transport.Connection", false, null);
                Class<?> connectionInput = Class.forName("sun.rmi.transport.ConnectionInputStream", false, null);
                MethodHandles.Lookup rmi = MethodHandles.privateLookupIn(call, MethodHandles.lookup());
                rmi.defineClass(patchClass("LeanConnectionOutputStream$NoConnection"));
                Class<?> output = rmi.defineClass(patchClass("LeanConnectionOutputStream"));
                Class<?> input = rmi.defineClass(patchClass("LeanConnectionInputStream"));
                CONNECTION_OUTPUT = rmi.findVirtual(connection, "getOutputStream", MethodType.methodType(OutputStream.class))
                        .asType(MethodType.methodType(OutputStream.class, Object.class));
                CONNECTION_INPUT = rmi.findVirtual(connection, "getInputStream", MethodType.methodType(InputStream.class))
                        .asType(MethodType.methodType(InputStream.class, Object.class));
                NEW_OUTPUT = rmi.findConstructor(output, MethodType.methodType(void.class, LeanWriter.class, boolean.class, Runnable.class))
                        .asType(MethodType.methodType(LeanObjectOutput.class, LeanWriter.class, boolean.class, Runnable.class));
                NEW_INPUT = rmi.findConstructor(input, MethodType.methodType(void.class, LeanReader.class, Consumer.class))
                        .asType(MethodType.methodType(LeanObjectInput.class, LeanReader.class, Consumer.class));
                DGC_ACK_NEEDED = MethodHandles.privateLookupIn(connectionInput, MethodHandles.lookup())
                        .findVarHandle(connectionInput, "dgcAckNeeded", boolean.class);
                Class<?> objectTable = Class.forName("sun.rmi.transport.ObjectTable", false, null);
                Class<?> target = Class.forName("sun.rmi.transport.Target", false, null);
                TARGET_OF = rmi.findStatic(objectTable, "getTarget", MethodType.methodType(target, Remote.class))
                        .asType(MethodType.methodType(Object.class, Remote.class));
                STUB_OF = rmi.findVirtual(target, "getStub", MethodType.methodType(Remote.class))
                        .asType(MethodType.methodType(Remote.class, Object.class));
            } catch (ReflectiveOperationException | IOException e) {
                throw new IllegalStateException("FastRMI cannot put the lean format under RMI: " + e, e);
            }
        }

        private static byte[] patchClass(String name) throws IOException {
            return RmiPatch.classBytes(name);
        }
    }

    // Classes, not lambdas or method references, on the first lean connection's path: each would
    // cost the JVM a class spun at its first use (StartupIT).

    /** What a call's stream gets again per call that a new JDK stream would have. */
    private static final Consumer<Object> RENEW_INPUT = new Consumer<>() {
        @Override
        public void accept(Object stream) {
            LeanRuntime.renewFilter((ObjectInputStream) stream);
            Rmi.DGC_ACK_NEEDED.set(stream, false);
        }
    };

    /**
     * What RMI's marshal stream does to each object ({@code MarshalOutputStream.replaceObject}): an
     * exported remote object goes as its stub. Looked up as it does, not through
     * {@code RemoteObject.toStub}, which throws for every remote object that is not exported (a
     * proxy stub's handler, written with every stub: an exception per callback).
     */
    static final LeanWriter.Replacer EXPORTED_AS_STUB = new LeanWriter.Replacer() {
        @Override
        public Object replace(Object obj) {
            if (obj instanceof Remote remote && !(obj instanceof RemoteStub)) {
                Remote stub = stubOfExport(remote);
                if (stub != null) {
                    return stub;
                }
            }
            return obj;
        }
    };

    /** The stub of {@code remote}'s export, or null when it is not exported. */
    private static Remote stubOfExport(Remote remote) {
        try {
            Object target = Rmi.TARGET_OF.invokeExact(remote);
            return target == null ? null : (Remote) Rmi.STUB_OF.invokeExact(target);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("FastRMI could not look up the export of " + remote.getClass().getName(), t);
        }
    }

    private final Socket socket;
    private final LeanWriter writer;
    private final LeanReader reader;
    private LeanObjectOutput output;
    /** The input stream of the call begun last on this connection. */
    private LeanObjectInput input;
    /** The other one, for a call that begins while the call before still releases {@link #input}. */
    private LeanObjectInput spareInput;
    private final Runnable afterEachMessage = new Runnable() {
        @Override
        public void run() {
            afterMessage();
        }
    };

    private LeanStreams(FastSocket socket, Object connection) throws Throwable {
        this.socket = socket;
        boolean sharedClasspath = socket.answer().optimizations().contains(io.fastrmi.optrmi.Optimization.NO_ANNOTATIONS);
        OutputStream sink = (OutputStream) Rmi.CONNECTION_OUTPUT.invokeExact(connection);
        this.writer = new LeanWriter(sink, EXPORTED_AS_STUB, sharedClasspath ? null : RMIClassLoader::getClassAnnotation,
                socket.bulkOutput(sink));
        InputStream source = (InputStream) Rmi.CONNECTION_INPUT.invokeExact(connection);
        this.reader = new LeanReader(source, new RmiClassResolver(), socket.bulkInput(source));
    }

    /** The output stream of a call on {@code connection} (an RMI {@code Connection}), begun; null: stock RMI. */
    public static Object beginOutput(Object connection, boolean resultStream) throws IOException {
        LeanStreams streams = of(connection);
        if (streams == null) {
            return null;
        }
        if (streams.writer.isBroken()) {
            streams.close("its lean output failed earlier");
        }
        if (streams.output == null) {
            streams.output = Privileged.call(new Making<LeanObjectOutput>() {
                @Override
                LeanObjectOutput make() throws Throwable {
                    return (LeanObjectOutput) Rmi.NEW_OUTPUT.invokeExact(streams.writer, resultStream,
                            streams.afterEachMessage);
                }
            });
        }
        streams.output.beginMessage();
        return streams.output;
    }

    /** The input stream of a call on {@code connection}, begun, with RMI's filter for it if any; null: stock RMI. */
    public static Object beginInput(Object connection, ObjectInputFilter filter) throws IOException {
        LeanStreams streams = of(connection);
        if (streams == null) {
            return null;
        }
        if (streams.reader.isBroken()) {
            streams.close("its lean input failed earlier");
        }
        LeanObjectInput input = streams.inputForNextCall();
        input.beginMessage();
        if (filter != null) {
            ((ObjectInputStream) input).setObjectInputFilter(filter);
        }
        return input;
    }

    /**
     * The stream the next call reads through: the last one, unless the call before still releases
     * it (see {@link io.fastrmi.optrmi.lean.InputHold}); then the spare, made when first needed, or
     * a new one where the spare is held too (its call never released it: RMI's client does not,
     * after an exception from the server).
     */
    private LeanObjectInput inputForNextCall() throws IOException {
        LeanObjectInput last = input;
        if (last != null && last.hold().mayBegin()) {
            return last;
        }
        LeanObjectInput next = spareInput;
        if (next == null || !next.hold().mayBegin()) {
            next = Privileged.call(new Making<LeanObjectInput>() {
                @Override
                LeanObjectInput make() throws Throwable {
                    return (LeanObjectInput) Rmi.NEW_INPUT.invokeExact(reader, RENEW_INPUT);
                }
            });
        }
        spareInput = last;
        input = next;
        return next;
    }

    /**
     * RMI's client frees {@code connection} for the next call ({@code TCPChannel.free}) when the
     * reply's value is read and before it releases the call's input: the lean message ends here,
     * so that the next call's reads are its own. Returns whether the connection may go back to the
     * pool: not when its lean streams failed (it closes, and the next call makes another).
     */
    public static boolean freed(Object connection) {
        if (!(RmiCalls.Peers.socketOf(connection) instanceof FastSocket socket)
                || !(socket.leanStreams() instanceof LeanStreams streams)) {
            return true;
        }
        if (streams.input != null) {
            try {
                streams.input.hold().connectionFreed();
            } catch (IOException | RuntimeException e) {
                return false; // the reader is broken now
            }
        }
        return !streams.reader.isBroken() && !streams.writer.isBroken();
    }

    /** The connection's lean streams; the handshake's answer is looked at only until they exist. */
    private static LeanStreams of(Object connection) throws IOException {
        if (!(RmiCalls.Peers.socketOf(connection) instanceof FastSocket socket)) {
            return null;
        }
        Object streams = socket.leanStreams();
        if (streams == null) {
            if (!socket.negotiatedLean()) {
                return null;
            }
            streams = Privileged.call(new Making<LeanStreams>() {
                @Override
                LeanStreams make() throws Throwable {
                    LeanStreams made = new LeanStreams(socket, connection);
                    LeanWarmUp.once();
                    return made;
                }
            });
            socket.leanStreams(streams);
        }
        return (LeanStreams) streams;
    }

    /** A connection whose lean stream failed is not used again: it closes, and RMI makes another. */
    private void close(String why) throws IOException {
        socket.close();
        throw new IOException("FastRMI closed a connection: " + why);
    }

    /**
     * After each message this connection sent: when the call's input failed to decode (a class
     * that differs, a filter's rejection), the reply that says so is out now and the connection
     * closes; nothing more of the failed input is read (RMI's client drops such a connection too).
     */
    private void afterMessage() {
        if (reader.isBroken()) {
            try {
                writer.flush();
            } catch (IOException e) {
                // The connection is going anyway.
            }
            try {
                socket.close();
            } catch (IOException e) {
                // Closing is all that was left to do.
            }
        }
    }

    /** Something made with FastRMI's permissions: a Security Manager checks the making of a serialization stream's subclass. */
    private abstract static class Making<T> implements Privileged.Work<T> {
        abstract T make() throws Throwable;

        @Override
        public final T run() throws IOException {
            try {
                return make();
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IOException(t);
            }
        }
    }
}
