package io.fastrmi.fastsockets.transport;

import java.io.FileDescriptor;
import java.lang.reflect.AccessibleObject;
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

    private static final Field SOCKET_IMPL = opened(field(Socket.class, "impl"));
    private static final Method FILE_DESCRIPTOR = opened(method(SocketImpl.class, "getFileDescriptor"));
    private static final Field FD = opened(field(FileDescriptor.class, "fd"));

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

    // Looked up by plain calls, not lambdas: each lambda costs the JVM a class spun at its first use (StartupIT).
    private static Field field(Class<?> type, String name) {
        try {
            return type.getDeclaredField(name);
        } catch (NoSuchFieldException | RuntimeException e) {
            return null;
        }
    }

    private static Method method(Class<?> type, String name) {
        try {
            return type.getDeclaredMethod(name);
        } catch (NoSuchMethodException | RuntimeException e) {
            return null;
        }
    }

    /** {@code member} made accessible, or null where it is missing or the JDK does not open it to FastRMI. */
    private static <T extends AccessibleObject> T opened(T member) {
        if (member == null) {
            return null;
        }
        try {
            member.setAccessible(true);
            return member;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
