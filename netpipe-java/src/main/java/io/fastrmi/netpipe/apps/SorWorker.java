package io.fastrmi.netpipe.apps;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** An SOR worker as its neighbours call it: a boundary row of theirs, after step {@code step}. */
public interface SorWorker extends Remote {

    void boundary(int step, int fromRank, double[] row) throws RemoteException;
}
