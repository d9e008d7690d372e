/**
 * {@code scope = jvm}: every socket of the JVM made FastRMI's through a {@code SocketImpl}, its
 * listeners registered on this host so that a connection knows whether to offer. Uses config,
 * transport and handshake.
 */
package io.fastrmi.fastsockets.jvm;
