package io.fastrmi.fastsockets.jvm;

import io.fastrmi.fastsockets.handshake.HostIdentity;
import io.fastrmi.fastsockets.handshake.NegotiatedSocket;
import io.fastrmi.fastsockets.handshake.SocketTransport;
import io.fastrmi.fastsockets.transport.FastRmiLog;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketImpl;
import java.nio.file.Path;

/**
 * scope = jvm: every socket of the JVM is made by FastRMI ({@link JvmSocketImpl} over the JDK's own
 * implementation), so that socket traffic between FastRMI JVMs of this host, not only RMI's, goes
 * native. RMI's own sockets keep the JDK's implementation under them: they negotiate for themselves.
 * Needs JDK 22 or newer (the native transports) and {@code java.net} opened to FastRMI by the agent.
 */
public final class JvmScope {

    private static volatile LocalListeners listeners;

    private JvmScope() {
    }

    /**
     * Installs the JVM-wide socket factories, with the listeners of this host under {@code directory}
     * (the user's own). Where that cannot be done (JDK 17-21, a factory set already, a namespace that
     * cannot be read) one line says why and only RMI's sockets are FastRMI's; nothing else changes.
     */
    public static synchronized void install(Path directory) {
        if (listeners != null) {
            return;
        }
        String whyNot = null;
        String namespace = HostIdentity.netNamespace();
        if (Runtime.version().feature() < 22) {
            whyNot = "it needs JDK 22 or newer (the native transports), this is " + Runtime.version().feature();
        } else if (namespace == null) {
            whyNot = "this JVM's network namespace cannot be read (/proc/self/ns/net)";
        } else {
            LocalListeners local = new LocalListeners(directory.resolve("net-" + namespace));
            try {
                PlatformSockets.newImpl(false);
                // Client sockets first: a ServerSocket of ours accepts only into sockets of ours.
                Socket.setSocketImplFactory(() -> new JvmSocketImpl(PlatformSockets.newImpl(false), local));
                ServerSocket.setSocketFactory(() -> new JvmSocketImpl(PlatformSockets.newImpl(true), local));
                listeners = local;
            } catch (IOException | RuntimeException e) {
                whyNot = "the JVM's socket factories cannot be set: " + e.getMessage();
            }
        }
        if (whyNot != null) {
            FastRmiLog.warn("FastRMI: scope = jvm is not in effect, only RMI's sockets are FastRMI's: " + whyNot);
        }
    }

    /** The transport a socket's bytes go over, as far as FastRMI knows ({@link SocketTransport}). */
    public static SocketTransport transportOf(Socket socket) {
        if (socket instanceof NegotiatedSocket negotiated) {
            return negotiated.negotiatedTransport();
        }
        if (listeners == null) {
            return SocketTransport.NOT_NEGOTIATED;
        }
        return PlatformSockets.implOf(socket) instanceof JvmSocketImpl impl ? impl.transport() : SocketTransport.NOT_NEGOTIATED;
    }

    /**
     * The JDK's own implementation for one of RMI's sockets ({@code server}: a server socket's), or
     * null when scope = jvm is not installed and the default one is the JDK's anyway.
     */
    public static SocketImpl platformImplForRmi(boolean server) {
        return listeners == null ? null : PlatformSockets.newImpl(server);
    }
}
