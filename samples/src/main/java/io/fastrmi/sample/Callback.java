package io.fastrmi.sample;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A remote object the client exports and the server calls back. */
public interface Callback extends Remote {

    int call(int value) throws RemoteException;
}
