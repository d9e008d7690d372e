package io.fastrmi.netpipe.dirmi;

import org.cojen.dirmi.Remote;
import org.cojen.dirmi.RemoteException;

/** The client's callback for {@code pingpong}, as Dirmi declares it. */
public interface DirmiPong extends Remote {

    Object pong(Object obj) throws RemoteException;
}
