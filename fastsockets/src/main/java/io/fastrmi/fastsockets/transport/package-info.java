/**
 * The native transports of a JVM: their contexts (opened once, retired when full), the byte streams
 * a socket's bytes go over once negotiated, and the log lines. With {@code nativelib} (the library's
 * Java face) and {@code ffm} (its FFM binding, Java 22). Hands out address bytes; what they mean in a
 * handshake is the handshake's. Uses only config.
 */
package io.fastrmi.fastsockets.transport;
