package io.fastrmi.netpipe.breakdown;

import java.util.List;
import java.util.Optional;

/**
 * Puts one sampled stack (innermost frame first, each {@code class.method}) of an RMI thread into a
 * {@link Category}: the innermost frame that names a category decides, so serialization that flushes
 * to the socket counts as network, and a stub's own work as protocol. Samples outside a call (a
 * connection handler waiting for the next one, threads that make no calls) are left out (empty).
 */
public final class SampleClassifier {

    private static final String CLIENT_CALL = "sun.rmi.server.UnicastRef.invoke";
    private static final String SERVER_CALL = "sun.rmi.server.UnicastServerRef.dispatch";

    private SampleClassifier() {
    }

    /** The sample's category, or empty when it is not inside an RMI call. */
    public static Optional<Category> classify(List<String> frames) {
        int call = callFrame(frames);
        if (call < 0) {
            return Optional.empty();
        }
        boolean server = frames.get(call).startsWith(SERVER_CALL);
        for (int i = 0; i < call; i++) {
            String frame = frames.get(i);
            if (isNetwork(frame)) {
                return Optional.of(Category.NETWORK);
            }
            if (isSerialization(frame)) {
                return Optional.of(Category.SERIALIZATION);
            }
            if (isDgc(frame)) {
                return Optional.of(Category.DGC);
            }
            // the server's remote method: the first frame outside RMI and reflection, called from dispatch
            if (server && isApplication(frames, i, call)) {
                return Optional.of(Category.APPLICATION);
            }
        }
        return Optional.of(Category.PROTOCOL);
    }

    /** The outermost frame that is an RMI call (client or server side), or -1. */
    private static int callFrame(List<String> frames) {
        for (int i = frames.size() - 1; i >= 0; i--) {
            String frame = frames.get(i);
            if (frame.startsWith(CLIENT_CALL) || frame.startsWith(SERVER_CALL)) {
                return i;
            }
        }
        return -1;
    }

    static boolean isNetwork(String frame) {
        return frame.startsWith("java.net.") || frame.startsWith("sun.nio.ch.") || frame.startsWith("java.nio.channels.")
                || frame.startsWith("io.fastrmi.fastsockets.") || frame.startsWith("jdk.internal.foreign.abi.")
                || frame.startsWith("java.io.BufferedInputStream.fill") || frame.startsWith("java.io.BufferedOutputStream.flush")
                || frame.startsWith("org.cojen.dirmi.core.CorePipe.flush");
    }

    static boolean isSerialization(String frame) {
        return frame.startsWith("java.io.ObjectOutputStream") || frame.startsWith("java.io.ObjectInputStream")
                || frame.startsWith("java.io.ObjectStreamClass") || frame.startsWith("io.fastrmi.optrmi.lean.")
                || frame.startsWith("sun.rmi.server.MarshalOutputStream") || frame.startsWith("sun.rmi.server.MarshalInputStream")
                || frame.startsWith("sun.rmi.server.UnicastRef.marshalValue") || frame.startsWith("sun.rmi.server.UnicastRef.unmarshalValue")
                || frame.startsWith("sun.rmi.transport.LeanConnection");
    }

    static boolean isDgc(String frame) {
        return frame.startsWith("sun.rmi.transport.DGC") || frame.startsWith("java.rmi.dgc.")
                || frame.startsWith("sun.rmi.transport.ConnectionInputStream.registerRefs")
                || frame.startsWith("sun.rmi.transport.ConnectionInputStream.saveRef")
                || frame.startsWith("sun.rmi.transport.LiveRef.exportObject");
    }

    private static boolean isApplication(List<String> frames, int i, int call) {
        String frame = frames.get(i);
        if (frame.startsWith("java.") || frame.startsWith("jdk.") || frame.startsWith("sun.")) {
            return false;
        }
        // called (through reflection) from dispatch: every frame between it and dispatch is the JDK's
        for (int j = i + 1; j < call; j++) {
            String caller = frames.get(j);
            if (!(caller.startsWith("java.") || caller.startsWith("jdk.") || caller.startsWith("sun."))) {
                return false;
            }
        }
        return true;
    }
}
