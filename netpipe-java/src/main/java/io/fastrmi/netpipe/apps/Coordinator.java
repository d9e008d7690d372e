package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.List;

/**
 * The coordinator of one parallel run, bound in its registry as {@value #NAME}: the workers join,
 * learn each other, work (calling each other, and the coordinator's own services where the
 * application has some), and hand in their parts of the result.
 */
public interface Coordinator extends Remote {

    String NAME = "coordinator";

    /** Who a worker is in the run: its rank, and every worker's remote object by rank (its own too). */
    record Peers(int rank, List<Remote> workers) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /**
     * Where a worker's time went: {@code commNanos} in remote calls and in waits for other workers'
     * data, the rest of {@code totalNanos} computing.
     */
    record Times(long totalNanos, long commNanos, long calls) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** Joins {@code worker} (its remote object); returns once every worker has joined. */
    Peers join(Remote worker) throws RemoteException;

    /** Worker {@code rank} is done: its part of the result, and where its time went. */
    void done(int rank, Serializable part, Times times) throws RemoteException;
}
