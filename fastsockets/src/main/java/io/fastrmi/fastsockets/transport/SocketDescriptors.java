package io.fastrmi.fastsockets.transport;

import java.io.FileDescriptor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.Socket;
import java.net.SocketImpl;

/**
 * The descriptor number under a JDK socket, for a wait FastRMI makes on it itself (a nudgeable
 * sleep): read through the JDK's internals, which only the agent opens to FastRMI ({@code java.net}
 * and {@code java.io}); -1 where they are closed or the socket has none, and such a wait then is
 * the socket's own read.
 */
public final class SocketDescriptors {

    private static final Field SOCKET_IMPL = field(Socket.class, "impl");
    private static final Method FILE_DESCRIPTOR = method(SocketImpl.class, "getFileDescriptor");
    private static final Field FD = field(FileDescriptor.class, "fd");

    private SocketDescriptors() {
    }

    /** {@code socket}'s descriptor number, or -1. */
    public static int of(Socket socket) {
        if (SOCKET_IMPL == null) {
            return -1;
        }
        try {
            return of((SocketImpl) SOCKET_IMPL.get(socket));
        } catch (IllegalAccessException | RuntimeException e) {
            return -1;
        }
    }

    /** {@code impl}'s descriptor number (a delegating implementation asks its delegate), or -1. */
    public static int of(SocketImpl impl) {
        if (impl == null || FILE_DESCRIPTOR == null || FD == null) {
            return -1;
        }
        try {
            FileDescriptor fd = (FileDescriptor) FILE_DESCRIPTOR.invoke(impl);
            return fd == null ? -1 : FD.getInt(fd);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    private static Field field(Class<?> type, String name) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // not opened to FastRMI: no descriptor
        }
    }

    private static Method method(Class<?> type, String name) {
        try {
            Method method = type.getDeclaredMethod(name);
            method.setAccessible(true);
            return method;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
