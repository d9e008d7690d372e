package io.fastrmi.netpipe.np;

/**
 * The calls of netpipe-java's kernels, whatever carries them: Java RMI ({@link RmiCalls}) or a
 * reference peer with its own protocol (Dirmi), so that every peer runs the same kernels.
 */
public interface Calls {

    void ping() throws Exception;

    void ping(int a, int b) throws Exception;

    void ping(int a, int b, float c, float d) throws Exception;

    Object ping(Object obj) throws Exception;

    /** The server calls the client back with {@code obj} and returns what the client answered. */
    Object pingpong(Object obj) throws Exception;

    byte[] echo(byte[] values) throws Exception;

    int[] echo(int[] values) throws Exception;

    double[] echo(double[] values) throws Exception;

    void take(byte[] values) throws Exception;

    void take(int[] values) throws Exception;

    void take(double[] values) throws Exception;
}
