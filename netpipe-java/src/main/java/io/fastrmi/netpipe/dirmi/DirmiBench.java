package io.fastrmi.netpipe.dirmi;

import org.cojen.dirmi.Remote;
import org.cojen.dirmi.RemoteException;

/** The bench's service as Cojen Dirmi declares it: netpipe-java's kernels, on Dirmi's own protocol. */
public interface DirmiBench extends Remote {

    String NAME = "bench";

    void ping() throws RemoteException;

    void ping(int a, int b) throws RemoteException;

    void ping(int a, int b, float c, float d) throws RemoteException;

    Object ping(Object obj) throws RemoteException;

    Object pingpong(Object obj, DirmiPong pong) throws RemoteException;

    byte[] echo(byte[] values) throws RemoteException;

    int[] echo(int[] values) throws RemoteException;

    double[] echo(double[] values) throws RemoteException;

    void take(byte[] values) throws RemoteException;

    void take(int[] values) throws RemoteException;

    void take(double[] values) throws RemoteException;
}
