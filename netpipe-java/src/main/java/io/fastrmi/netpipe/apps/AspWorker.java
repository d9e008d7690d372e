package io.fastrmi.netpipe.apps;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** An ASP worker as the others call it: row {@code k} of the distances, from the worker that holds it. */
public interface AspWorker extends Remote {

    void row(int k, int[] row) throws RemoteException;
}
