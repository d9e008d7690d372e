package io.fastrmi.fastsockets.jvm;

import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketImpl;
import java.net.SocketOption;
import java.util.Set;

/**
 * The JDK's own socket implementation, as scope = jvm uses it under every socket: the
 * {@code SocketImpl} methods are protected, so they are reached reflectively, which needs
 * {@code java.net} opened to FastRMI (the agent does that). Nothing here is on a per-byte path: a
 * socket's streams are taken once.
 */
final class PlatformSockets {

    private static final Method NEW_IMPL = method("createPlatformSocketImpl", boolean.class);
    private static final Method CREATE = method("create", boolean.class);
    private static final Method CONNECT = method("connect", SocketAddress.class, int.class);
    private static final Method BIND = method("bind", InetAddress.class, int.class);
    private static final Method LISTEN = method("listen", int.class);
    private static final Method ACCEPT = method("accept", SocketImpl.class);
    private static final Method INPUT = method("getInputStream");
    private static final Method OUTPUT = method("getOutputStream");
    private static final Method CLOSE = method("close");
    private static final Method SHUTDOWN_INPUT = method("shutdownInput");
    private static final Method SHUTDOWN_OUTPUT = method("shutdownOutput");
    private static final Method FILE_DESCRIPTOR = method("getFileDescriptor");
    private static final Method ADDRESS = method("getInetAddress");
    private static final Method PORT = method("getPort");
    private static final Method LOCAL_PORT = method("getLocalPort");
    private static final Method SUPPORTS_URGENT = method("supportsUrgentData");
    private static final Method SEND_URGENT = method("sendUrgentData", int.class);
    private static final Method PREFERENCES = method("setPerformancePreferences", int.class, int.class, int.class);
    private static final Method SET_OPTION = method("setOption", SocketOption.class, Object.class);
    private static final Method GET_OPTION = method("getOption", SocketOption.class);
    private static final Method SUPPORTED_OPTIONS = method("supportedOptions");
    private static final Field SOCKET_IMPL = field(Socket.class, "impl");

    private PlatformSockets() {
    }

    /** A new, unconnected JDK socket implementation; {@code server}: for a ServerSocket. */
    static SocketImpl newImpl(boolean server) {
        try {
            return (SocketImpl) NEW_IMPL.invoke(null, server);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot create the JDK's socket implementation", e);
        }
    }

    /** The implementation under a socket (null before it has one). */
    static SocketImpl implOf(Socket socket) {
        try {
            return (SocketImpl) SOCKET_IMPL.get(socket);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    static void create(SocketImpl impl, boolean stream) throws IOException {
        call(CREATE, impl, stream);
    }

    static void connect(SocketImpl impl, SocketAddress address, int timeout) throws IOException {
        call(CONNECT, impl, address, timeout);
    }

    static void bind(SocketImpl impl, InetAddress host, int port) throws IOException {
        call(BIND, impl, host, port);
    }

    static void listen(SocketImpl impl, int backlog) throws IOException {
        call(LISTEN, impl, backlog);
    }

    static void accept(SocketImpl impl, SocketImpl into) throws IOException {
        call(ACCEPT, impl, into);
    }

    static InputStream input(SocketImpl impl) throws IOException {
        return (InputStream) call(INPUT, impl);
    }

    static OutputStream output(SocketImpl impl) throws IOException {
        return (OutputStream) call(OUTPUT, impl);
    }

    static void close(SocketImpl impl) throws IOException {
        call(CLOSE, impl);
    }

    static void shutdownInput(SocketImpl impl) throws IOException {
        call(SHUTDOWN_INPUT, impl);
    }

    static void shutdownOutput(SocketImpl impl) throws IOException {
        call(SHUTDOWN_OUTPUT, impl);
    }

    static void sendUrgentData(SocketImpl impl, int data) throws IOException {
        call(SEND_URGENT, impl, data);
    }

    static <T> void setOption(SocketImpl impl, SocketOption<T> name, T value) throws IOException {
        call(SET_OPTION, impl, name, value);
    }

    @SuppressWarnings("unchecked")
    static <T> T getOption(SocketImpl impl, SocketOption<T> name) throws IOException {
        return (T) call(GET_OPTION, impl, name);
    }

    @SuppressWarnings("unchecked")
    static Set<SocketOption<?>> supportedOptions(SocketImpl impl) {
        return (Set<SocketOption<?>>) unchecked(SUPPORTED_OPTIONS, impl);
    }

    static FileDescriptor fileDescriptor(SocketImpl impl) {
        return (FileDescriptor) unchecked(FILE_DESCRIPTOR, impl);
    }

    static InetAddress address(SocketImpl impl) {
        return (InetAddress) unchecked(ADDRESS, impl);
    }

    static int port(SocketImpl impl) {
        return (Integer) unchecked(PORT, impl);
    }

    static int localPort(SocketImpl impl) {
        return (Integer) unchecked(LOCAL_PORT, impl);
    }

    static boolean supportsUrgentData(SocketImpl impl) {
        return (Boolean) unchecked(SUPPORTS_URGENT, impl);
    }

    static void setPerformancePreferences(SocketImpl impl, int connectionTime, int latency, int bandwidth) {
        unchecked(PREFERENCES, impl, connectionTime, latency, bandwidth);
    }

    private static Object call(Method method, SocketImpl impl, Object... args) throws IOException {
        try {
            return method.invoke(impl, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IOException(cause);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** For the methods that declare no IOException. */
    private static Object unchecked(Method method, SocketImpl impl, Object... args) {
        try {
            return call(method, impl, args);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Method method(String name, Class<?>... parameters) {
        try {
            Method method = SocketImpl.class.getDeclaredMethod(name, parameters);
            method.setAccessible(true);
            return method;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("java.net.SocketImpl." + name + " cannot be reached: " + e, e);
        }
    }

    private static Field field(Class<?> type, String name) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException(type.getName() + "." + name + " cannot be reached: " + e, e);
        }
    }
}
