package io.fastrmi.agent.bootstrap;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** One RMI call, as seen by the client or by the server. Its duration is the whole call on that side. */
@Name("fastrmi.RmiCall")
@Label("RMI Call")
@Category("FastRMI")
@Description("One RMI call on the client or the server side")
@StackTrace(false)
public final class RmiCallEvent extends Event {

    @Label("Method")
    @Description("The remote method's name")
    public String method;

    @Label("Peer")
    @Description("The other end of the connection, host:port")
    public String peer;

    @Label("Side")
    @Description("client or server")
    public String side;

    @Label("Negotiated")
    @Description("Whether the call ran on a FastRMI-negotiated connection")
    public boolean negotiated;

    @Label("Lean")
    @Description("Whether the call's arguments and result crossed in FastRMI's lean wire format")
    public boolean lean;

    /** The call this one is nested in on the same thread; not recorded. */
    transient RmiCallEvent outer;
}
