/**
 * FastRMI sockets: the {@code SocketImpl} and {@code SocketImplFactory} that RMI's sockets are made
 * with, the upgrade negotiation, and the transports under them (pure-Java TCP here; the FFM-based
 * native transports in the Java 22 part of the jar). Built by the negotiation and native-transport
 * issues; this module is the place they land.
 */
package io.fastrmi.fastsockets;
