package io.fastrmi.netpipe.apps;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** What an N-body worker is sent: another worker's block of bodies at a step. */
public interface NBodyWorker extends Remote {
    void bodies(int step, int sender, NBody.Body[] bodies) throws RemoteException;
}
