package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;

/**
 * TSP's central job queue, in the coordinator, bound as {@value #NAME}: partial tours handed out one
 * at a time, and the shortest tour length any worker has found, which each job carries so that
 * workers prune with it.
 */
public interface TspJobs extends Remote {

    String NAME = "tsp-jobs";

    /** A partial tour from city 0 to search the rest of, and the shortest full tour known when it was handed out. */
    record Job(int[] prefix, int bound) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** The next job, or null when none is left. */
    Job next() throws RemoteException;

    /** A worker found a full tour of {@code length}. */
    void found(int length) throws RemoteException;
}
