package io.fastrmi.netpipe.bench.kernels;

import io.fastrmi.netpipe.bench.objects.Node;
import io.fastrmi.netpipe.bench.objects.Order;
import java.rmi.Remote;
import java.rmi.RemoteException;

/** The remote service the benchmark's kernels call: each method is one kind of RMI traffic. */
public interface BenchService extends Remote {

    /** The name the service is bound under in the server's registry. */
    String NAME = "bench";

    /** What the server passes to the client's callback; the client's answer and the server's + 1 are checked. */
    int CALLBACK_ARGUMENT = 20;

    /** The null call: no arguments, no result, only RMI's own overhead. */
    void ping() throws RemoteException;

    int echo(int value) throws RemoteException;

    /** A small object graph (the client sends a full tree of 15 nodes). */
    Node echo(Node tree) throws RemoteException;

    /** Strings, a list and doubles in, a changed copy out: {@link Order#transformed()}. */
    Order transform(Order order) throws RemoteException;

    /** Bulk data (the client sends 1 MiB). */
    double[] echo(double[] values) throws RemoteException;

    /** Calls {@code callback.call(CALLBACK_ARGUMENT)} back on the client once and returns its result + 1. */
    int callback(Callback callback) throws RemoteException;

    /** KaRMI's {@code ping(int,int)}: two ints in, nothing out. */
    void ping(int a, int b) throws RemoteException;

    /** KaRMI's {@code ping(int,int,float,float)}. */
    void ping(int a, int b, float c, float d) throws RemoteException;

    /** KaRMI's {@code obj ping(obj)}: the object back as it came. */
    Object ping(Object obj) throws RemoteException;

    /** KaRMI's {@code pingpong(obj)}: the server calls {@code pong.pong(obj)} back and returns its answer. */
    Object pingpong(Object obj, Pong pong) throws RemoteException;

    /** netpipe-java's rmi mode, echo of bytes. */
    byte[] echo(byte[] values) throws RemoteException;

    /** netpipe-java's rmi mode, echo of ints. */
    int[] echo(int[] values) throws RemoteException;

    /** netpipe-java's rmi mode, one way: the array goes to the server, only the call's completion comes back. */
    void take(byte[] values) throws RemoteException;

    void take(int[] values) throws RemoteException;

    void take(double[] values) throws RemoteException;

    /** What the server JVM's threads spent so far ({@link ThreadCosts#toArray}); not a kernel. */
    long[] processCost() throws RemoteException;

    /** The server JVM's JIT compilation time so far, in ms (-1: not known); not a kernel. */
    long compilationMillis() throws RemoteException;

    /**
     * The address of a JMX connector (the JDK's RMI connector) to the server JVM's platform MBean
     * server, started at the first call; not a kernel ({@link JmxScrape} scrapes through it).
     */
    String jmxAddress() throws RemoteException;
}
