package io.fastrmi.fastsockets.handshake;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** One negotiation (or its absence, for an outside host), on the client or the server side. */
@Name("fastrmi.Handshake")
@Label("FastRMI Handshake")
@Category("FastRMI")
@Description("The negotiation of one connection (RMI's, or any socket under scope = jvm): fast or plain, and why")
@StackTrace(false)
public final class HandshakeEvent extends Event {

    @Label("Peer")
    public String peer;

    @Label("Side")
    public String side;

    @Label("Scope")
    @Description("rmi: a connection of RMI's; jvm: any other socket of a JVM with scope = jvm")
    public String scope = "rmi";

    @Label("Result")
    @Description("fast, plain, or failed (the negotiation failed and the connection was closed)")
    public String result;

    @Label("Reason")
    @Description("Why the connection is plain or failed (empty when fast)")
    public String reason;

    @Label("Transport")
    public String transport;

    @Label("Optimizations")
    @Description("Lean-format optimizations both ends accepted")
    public String optimizations;
}
