package io.fastrmi.sample;

import java.io.IOException;
import java.io.Serializable;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import java.rmi.server.RMISocketFactory;
import javax.rmi.ssl.SslRMIClientSocketFactory;
import javax.rmi.ssl.SslRMIServerSocketFactory;

/**
 * The application's own socket factories, in the three ways an RMI application can choose them:
 * the JDK's SSL pair per remote object, a custom (plain TCP) pair per remote object, or one global
 * {@link RMISocketFactory}. FastRMI must leave all of them as they are.
 */
public final class AppSocketFactories {

    private AppSocketFactories() {
    }

    /** How the sample application picks its sockets. */
    public enum Mode {
        /** {@link SslRMIClientSocketFactory} / {@link SslRMIServerSocketFactory} for every remote object. */
        SSL("--ssl"),
        /** {@link PlainClientFactory} / {@link PlainServerFactory} for every remote object. */
        CUSTOM("--custom"),
        /** {@link GlobalFactory} set with {@link RMISocketFactory#setSocketFactory}; no per-object factories. */
        GLOBAL("--global");

        private final String flag;

        Mode(String flag) {
            this.flag = flag;
        }

        public String flag() {
            return flag;
        }

        public static Mode ofFlag(String flag) {
            for (Mode mode : values()) {
                if (mode.flag.equals(flag)) {
                    return mode;
                }
            }
            throw new IllegalArgumentException("unknown mode " + flag + " (--ssl, --custom or --global)");
        }

        /** The client socket factory to export remote objects with; null where the global factory is used. */
        public RMIClientSocketFactory clientFactory() {
            switch (this) {
                case SSL:
                    return new SslRMIClientSocketFactory();
                case CUSTOM:
                    return new PlainClientFactory();
                default:
                    return null;
            }
        }

        /** The server socket factory to export remote objects with; null where the global factory is used. */
        public RMIServerSocketFactory serverFactory() {
            switch (this) {
                case SSL:
                    return new SslRMIServerSocketFactory();
                case CUSTOM:
                    return new PlainServerFactory();
                default:
                    return null;
            }
        }

        /**
         * Sets the global factory for {@link #GLOBAL} (before any other RMI use); it throws if a factory
         * was already set, which must not happen under the agent.
         */
        public void installGlobal() throws IOException {
            if (this == GLOBAL) {
                RMISocketFactory.setSocketFactory(new GlobalFactory());
            }
        }
    }

    /** A client socket factory that makes plain TCP sockets; equal to every other, so connections are shared. */
    public static final class PlainClientFactory implements RMIClientSocketFactory, Serializable {

        private static final long serialVersionUID = 1L;

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return new Socket(host, port);
        }

        @Override
        public boolean equals(Object o) {
            return o != null && o.getClass() == getClass();
        }

        @Override
        public int hashCode() {
            return getClass().hashCode();
        }
    }

    /** A server socket factory that makes plain TCP server sockets. */
    public static final class PlainServerFactory implements RMIServerSocketFactory {

        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port);
        }

        @Override
        public boolean equals(Object o) {
            return o != null && o.getClass() == getClass();
        }

        @Override
        public int hashCode() {
            return getClass().hashCode();
        }
    }

    /** A global factory that makes plain TCP sockets, as RMI's default one would. */
    public static final class GlobalFactory extends RMISocketFactory {

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return new Socket(host, port);
        }

        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port);
        }
    }
}
