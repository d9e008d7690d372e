/**
 * The negotiation of one connection: the handshake records, the decision rules
 * ({@link io.fastrmi.fastsockets.handshake.Negotiation}), the one driver of both sides
 * ({@link io.fastrmi.fastsockets.handshake.Negotiator}), the endpoint text and the checks a peer's
 * native address passes, and FastRMI as installed in this JVM. Uses config and transport.
 */
package io.fastrmi.fastsockets.handshake;
