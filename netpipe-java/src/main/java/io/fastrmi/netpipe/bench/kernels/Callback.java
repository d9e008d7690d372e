package io.fastrmi.netpipe.bench.kernels;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Exported by the client, called by the server during {@link BenchService#callback}. */
public interface Callback extends Remote {

    int call(int value) throws RemoteException;
}
