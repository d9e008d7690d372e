package io.fastrmi.agent.bootstrap;

import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.optrmi.lean.ClassLoaderResolver;
import io.fastrmi.optrmi.lean.LeanObjectInput;
import io.fastrmi.optrmi.lean.LeanObjectOutput;
import io.fastrmi.optrmi.lean.LeanReader;
import io.fastrmi.optrmi.lean.LeanRuntime;
import io.fastrmi.optrmi.lean.LeanWriter;
import io.fastrmi.optrmi.lean.MemoryWire;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.rmi.server.ObjID;
import java.rmi.server.UID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The lean codec's per-message path, run over memory once per JVM when its first lean connection
 * makes its streams ({@code warm-up = on}, the default): messages shaped as RMI's calls and
 * replies, through the same marshal streams, writer and reader a connection uses. A fresh JVM
 * otherwise runs that path interpreted for its first few hundred calls, where stock RMI's calls
 * run through java.io methods the JDK has long compiled; with think time between them, those
 * calls lost to stock's by up to 1.4× (docs/benchmarks.md, "The first calls with think time"). On
 * a daemon thread, off the calls' path: it costs the JVM a few tens of milliseconds of CPU, once.
 *
 * <p>It reads back only what it wrote, with no serial filter and JDK classes resolved by the boot
 * loader: of the application's code only its serial filter factory, where it set one, is asked,
 * once, as the warm-up's stream is made (as for any stream); no filter of its sees the warm-up's
 * objects, no class loader of its is asked. A failure is said once in the log and changes nothing
 * else.
 */
final class LeanWarmUp {

    /**
     * Messages run: the methods of every message are invoked 1,024 times, those of a call's or a
     * reply's header 512, a value's about 680. The JIT takes a method into its first tier after 200
     * invocations when it is idle, but scales that with its queue, long while a JVM starts: after
     * 512 messages the per-message methods were still interpreted (-XX:+PrintCompilation, a
     * client's first lean connection), after 1,024 they were compiled. About 35 ms of CPU, once.
     */
    private static final int MESSAGES = 1024;
    /** What a message carries after its header: nothing (a call with no arguments, a void reply), a boxed number, a string. */
    private static final Object[] VALUES = {null, Integer.valueOf(42), "lean"};
    private static final long METHOD_HASH = 0x5eed_0f_fa57_4e11L;
    private static final byte RETURN_VALUE = 1;
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    /** Each message's input gets no filter (the connection's get the factory's: {@code LeanStreams}). */
    private static final Consumer<Object> RENEW_WITHOUT_FILTER = new Consumer<>() {
        @Override
        public void accept(Object stream) {
            LeanRuntime.renewWithoutFilter((ObjectInputStream) stream);
            LeanStreams.Rmi.DGC_ACK_NEEDED.set(stream, false);
        }
    };

    private final MemoryWire wire = new MemoryWire();
    private final LeanWriter writer = new LeanWriter(wire.out, LeanStreams.EXPORTED_AS_STUB, null, null);
    private final LeanReader reader = new LeanReader(wire.in, new ClassLoaderResolver(null), null);
    /** RMI's registry's id: a new ObjID would take a number from the JVM's count of exported objects. */
    private final ObjID target = new ObjID(ObjID.REGISTRY_ID);
    private final UID ack = new UID();

    private LeanWarmUp() {
    }

    /**
     * Starts the warm-up, the first time only, where the config asks for it. Called as the first
     * lean connection makes its streams, inside LeanStreams' privileged making (a Security Manager
     * checks the thread's start against FastRMI's permissions); a thread that cannot start leaves
     * the first calls to compile the codec themselves.
     */
    static void once() {
        if (!Installation.config().warmUp() || !STARTED.compareAndSet(false, true)) {
            return;
        }
        try {
            // No inherited thread-locals, no context loader: nothing of the calling thread's.
            Thread warmer = new Thread(null, RUN, "fastrmi-lean-warm-up", 0, false);
            warmer.setContextClassLoader(null);
            warmer.setDaemon(true);
            warmer.start();
        } catch (RuntimeException e) {
            said(e);
        }
    }

    private static final Runnable RUN = new Runnable() {
        @Override
        public void run() {
            try {
                new LeanWarmUp().messages();
            } catch (Throwable t) {
                said(t);
            }
        }
    };

    /** Said at most once: the warm-up starts once. */
    private static void said(Throwable t) {
        System.getLogger("io.fastrmi.agent").log(System.Logger.Level.INFO, "FastRMI: the lean codec's warm-up stopped ("
                + t + "); a JVM's first calls compile the codec themselves");
    }

    private void messages() throws Throwable {
        LeanObjectOutput output = (LeanObjectOutput) LeanStreams.Rmi.NEW_OUTPUT.invokeExact(writer, false,
                NOTHING_AFTER_MESSAGE);
        LeanObjectInput input = (LeanObjectInput) LeanStreams.Rmi.NEW_INPUT.invokeExact(reader, RENEW_WITHOUT_FILTER);
        for (int i = 0; i < MESSAGES; i++) {
            message(output, input, i % 2 == 0, VALUES[(i / 2) % VALUES.length]);
        }
    }

    /** One message, written and read back: a call's header ({@code call}) or a reply's, then {@code value} if not null. */
    private void message(LeanObjectOutput lean, LeanObjectInput leanInput, boolean call, Object value)
            throws IOException, ClassNotFoundException {
        ObjectOutputStream output = (ObjectOutputStream) lean;
        ObjectInputStream input = (ObjectInputStream) leanInput;
        wire.clear();
        lean.beginMessage();
        if (call) {
            target.write(output);
            output.writeInt(-1);
            output.writeLong(METHOD_HASH);
        } else {
            output.writeByte(RETURN_VALUE);
            ack.write(output);
        }
        if (value != null) {
            output.writeObject(value);
        }
        writer.endMessage(false);

        leanInput.beginMessage();
        if (call) {
            ObjID.read(input);
            input.readInt();
            input.readLong();
        } else {
            input.readByte();
            UID.read(input);
        }
        if (value != null && !value.equals(input.readObject())) {
            throw new IOException("the lean codec read back another value than " + value);
        }
        leanInput.hold().released();
    }

    private static final Runnable NOTHING_AFTER_MESSAGE = new Runnable() {
        @Override
        public void run() {
        }
    };
}
