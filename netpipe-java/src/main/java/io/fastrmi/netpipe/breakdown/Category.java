package io.fastrmi.netpipe.breakdown;

/** Where a sample of an RMI call's thread was, after seed 003's figures 2 and 6. */
public enum Category {
    /** Socket or native transport I/O, waiting for the peer included. */
    NETWORK("network"),
    /** Object streams: JDK serialization or the lean format. */
    SERIALIZATION("serialization"),
    /** RMI's own work: stubs, dispatch, call headers, reflection. */
    PROTOCOL("protocol"),
    /** Distributed GC: reference registration, dirty/clean calls, acks. */
    DGC("DGC"),
    /** The remote method's own code, on the server. */
    APPLICATION("application");

    private final String label;

    Category(String label) {
        this.label = label;
    }

    @Override
    public String toString() {
        return label;
    }
}
