package io.fastrmi.netpipe.bench.kernels;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Exported by the client, called back by the server during {@link BenchService#pingpong}. */
public interface Pong extends Remote {

    Object pong(Object obj) throws RemoteException;
}
