/**
 * FastRMI sockets: the {@code SocketImpl} and {@code SocketImplFactory} that RMI's sockets are made
 * with, the upgrade negotiation, and the transports under them (pure-Java TCP here; the FFM-based
 * native transports in the Java 22 part of the jar). Today it holds the config file's model and
 * parser ({@code config}); the socket layer comes with the negotiation and native-transport issues.
 */
package io.fastrmi.fastsockets;
