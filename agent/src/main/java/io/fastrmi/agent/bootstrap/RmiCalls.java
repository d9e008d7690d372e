package io.fastrmi.agent.bootstrap;

import io.fastrmi.fastsockets.handshake.JfrEvents;
import io.fastrmi.fastsockets.handshake.Privileged;
import io.fastrmi.fastsockets.rmi.FastSocket;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.Socket;

/**
 * What the advice inlined into {@code sun.rmi} calls: it opens, names and commits the
 * {@link RmiCallEvent} of the call in progress on the current thread. A thread has at most one call
 * in progress per side (a server method making an RMI call of its own is a client call on the
 * server's thread), nested ones aside. Nothing here throws into RMI: the advice suppresses what it
 * could. With a recording on, a call allocates nothing here once its thread has made one: each
 * thread keeps one event per side for its calls that are not nested (JFR copies an event's fields
 * at its commit, so the object can take the next call's) and its last connection's peer text.
 */
public final class RmiCalls {

    private RmiCalls() {
    }

    /** The threads' calls, and the event class initialized (which registers it with JFR), once JFR runs. */
    private static final class Recorded {
        static {
            Privileged.initialize(RmiCallEvent.class); // registered with FastRMI's permissions, not the thread's
        }

        // A class, not a method reference: it is made on a recording JVM's first call (StartupIT).
        static final ThreadLocal<Calls> CALLS = new ThreadLocal<Calls>() {
            @Override
            protected Calls initialValue() {
                return new Calls();
            }
        };
    }

    /** This thread's calls, or null while JFR has not started in this JVM ({@link JfrEvents}). */
    private static Calls calls() {
        return JfrEvents.started() ? Recorded.CALLS.get() : null;
    }

    /**
     * A client call to {@code method} begins; returns the event to end, or null when not recorded.
     * Typed {@code Object} here and in the other methods the advice calls: RMI's woven classes never
     * name the event class, whose superclass (JFR's) a runtime without {@code jdk.jfr} lacks.
     */
    public static Object clientBegin(String method) {
        Calls calls = calls();
        return calls == null ? null : calls.client.begin(method);
    }

    /** A 1.1-stub client call (registry, DGC) begins, with {@code operation} a {@code java.rmi.server.Operation}. */
    public static Object clientBeginOperation(Object operation) {
        Calls calls = calls();
        return calls == null ? null : calls.client.begin(methodName(operation));
    }

    /** The client call in progress is sent on {@code connection} (a {@code sun.rmi.transport.Connection}). */
    public static void clientConnection(Object connection) {
        Calls calls = calls();
        if (calls != null && calls.client.current != null) {
            clientSocket(calls, Peers.socketOf(connection));
        }
    }

    /** The client call in progress is sent on {@code socket}. */
    static void clientSocket(Socket socket) {
        Calls calls = calls();
        if (calls != null) {
            clientSocket(calls, socket);
        }
    }

    private static void clientSocket(Calls calls, Socket socket) {
        RmiCallEvent event = calls.client.current;
        if (event != null && event.peer == null) {
            calls.describe(event, socket);
        }
    }

    public static void clientEnd(Object event) {
        if (event != null) {
            Recorded.CALLS.get().client.end((RmiCallEvent) event);
        }
    }

    /** Ends the client call in progress, for 1.1 stubs whose end is seen without the event at hand. */
    public static void clientEndCurrent() {
        Calls calls = calls();
        if (calls != null) {
            calls.client.end(calls.client.current);
        }
    }

    /** The server reads a call from {@code call} (a {@code sun.rmi.transport.StreamRemoteCall}). */
    public static Object serverBegin(Object call) {
        Calls calls = calls();
        RmiCallEvent event = calls == null ? null : calls.server.begin(null);
        if (event != null) {
            calls.describe(event, Peers.socketOf(Peers.connectionOf(call)));
        }
        return event;
    }

    /** The server found the method, a {@link Method} or a 1.1-skeleton {@code Operation}. */
    public static void serverMethod(Object method) {
        Calls calls = calls();
        RmiCallEvent event = calls == null ? null : calls.server.current;
        if (event != null) {
            event.method = methodName(method);
        }
    }

    public static void serverEnd(Object event) {
        if (event != null) {
            Recorded.CALLS.get().server.end((RmiCallEvent) event);
        }
    }

    /** A thread's calls: its client and server side, and the peer of the last connection it described. */
    static final class Calls {
        final Side client = new Side("client");
        final Side server = new Side("server");
        private WeakReference<Socket> describedSocket = new WeakReference<>(null);
        private String describedPeer;

        /** The peer's host:port, and whether the connection is a FastRMI-negotiated one, and lean. */
        void describe(RmiCallEvent event, Socket socket) {
            if (socket == null || socket.getInetAddress() == null) {
                return;
            }
            if (describedSocket.get() != socket) { // a thread calls on few connections: text made once
                describedPeer = socket.getInetAddress().getHostAddress() + ":" + socket.getPort();
                describedSocket = new WeakReference<>(socket);
            }
            event.peer = describedPeer;
            event.negotiated = socket instanceof FastSocket fast && fast.negotiatedFast();
            event.lean = socket instanceof FastSocket fast && fast.negotiatedLean();
        }
    }

    /** One side's calls in progress on a thread, innermost first through {@link RmiCallEvent#outer}. */
    static final class Side {
        private final String name;
        /** The event of this side's calls that are not nested, reused from call to call. */
        private final RmiCallEvent outermost = new RmiCallEvent();
        RmiCallEvent current;

        Side(String name) {
            this.name = name;
        }

        RmiCallEvent begin(String method) {
            RmiCallEvent event = current == null ? outermost : new RmiCallEvent();
            if (!event.isEnabled()) {
                return null;
            }
            event.side = name;
            event.method = method;
            event.peer = null;
            event.negotiated = false;
            event.lean = false;
            event.outer = current;
            current = event;
            event.begin();
            return event;
        }

        void end(RmiCallEvent event) {
            if (event == null) {
                return;
            }
            if (current == event) {
                current = event.outer;
            }
            event.outer = null;
            event.end(); // a reused event's duration is set here, not left from its last call
            event.commit();
        }
    }

    /**
     * The name of a remote method: a {@link Method}'s name, or the name in a 1.1 {@code Operation}
     * such as {@code "java.rmi.Remote lookup(java.lang.String)"}.
     */
    public static String methodName(Object method) {
        if (method instanceof Method m) {
            return m.getName();
        }
        if (method == null) {
            return null;
        }
        String signature = method.toString();
        int paren = signature.indexOf('(');
        String head = paren < 0 ? signature : signature.substring(0, paren);
        return head.substring(head.lastIndexOf(' ') + 1);
    }

    /** Reads the remote address of an RMI connection; the agent opens the packages this needs. */
    static final class Peers {

        private static final MethodHandle CALL_CONNECTION;
        private static final MethodHandle CONNECTION_SOCKET;

        static {
            MethodHandle callConnection = null;
            MethodHandle connectionSocket = null;
            try {
                Class<?> call = Class.forName("sun.rmi.transport.StreamRemoteCall", false, null);
                Class<?> connection = Class.forName("sun.rmi.transport.Connection", false, null);
                Class<?> tcpConnection = Class.forName("sun.rmi.transport.tcp.TCPConnection", false, null);
                callConnection = MethodHandles.privateLookupIn(call, MethodHandles.lookup())
                        .findVirtual(call, "getConnection", MethodType.methodType(connection));
                connectionSocket = MethodHandles.privateLookupIn(tcpConnection, MethodHandles.lookup())
                        .findGetter(tcpConnection, "socket", Socket.class);
            } catch (ReflectiveOperationException | RuntimeException e) {
                System.getLogger("io.fastrmi.agent").log(System.Logger.Level.WARNING,
                        "FastRMI: cannot read RMI connection addresses, fastrmi.RmiCall events will have no peer: " + e);
            }
            CALL_CONNECTION = callConnection;
            CONNECTION_SOCKET = connectionSocket;
        }

        private Peers() {
        }

        static Object connectionOf(Object call) {
            if (CALL_CONNECTION == null || !CALL_CONNECTION.type().parameterType(0).isInstance(call)) {
                return null;
            }
            try {
                return CALL_CONNECTION.invoke(call);
            } catch (Throwable e) {
                return null;
            }
        }

        static Socket socketOf(Object connection) {
            if (CONNECTION_SOCKET == null || !CONNECTION_SOCKET.type().parameterType(0).isInstance(connection)) {
                return null;
            }
            try {
                return (Socket) CONNECTION_SOCKET.invoke(connection);
            } catch (Throwable e) {
                return null;
            }
        }
    }
}
