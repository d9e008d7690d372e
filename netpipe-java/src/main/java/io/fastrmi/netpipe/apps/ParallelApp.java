package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.registry.Registry;
import java.util.List;

/**
 * One of the parallel applications, as its coordinator and its workers run it: plain {@code
 * java.rmi}, nothing of FastRMI. Every JVM builds the same problem from the same seed and size.
 */
interface ParallelApp {

    /** The remote object each worker exports before it joins: what the other workers call. */
    Remote newWorkerObject();

    /** In the coordinator, before any worker joins: services of its own, bound in its registry (none by default). */
    default void bindServices(Registry registry, int workers) throws Exception {
    }

    /**
     * A worker's share of the run: {@code self} is the object it exported, {@code coordinator} the
     * registry where the coordinator's services are; its remote calls and waits go through {@code
     * clock}. Returns its part of the result.
     */
    Serializable work(Coordinator.Peers peers, Remote self, Registry coordinator, CommClock clock) throws Exception;

    /** In the coordinator: what differs between the workers' parts, combined, and the sequential result; null if nothing. */
    String check(List<Serializable> parts);

    /** The first {@code rows} items split in blocks over {@code workers}: where block {@code rank} starts. */
    static int blockStart(int rows, int workers, int rank) {
        return (int) ((long) rows * rank / workers);
    }

    /** A worker's block of the items: from {@code first} to {@code end}, exclusive. */
    record Block(int first, int end) {
    }

    /** This worker's block of {@code items}; refuses more workers than items ({@code what}: what they are, for the message). */
    static Block blockOf(int items, Coordinator.Peers peers, String what) {
        int workers = peers.workers().size();
        if (workers > items) {
            throw new IllegalArgumentException(items + " " + what + " are too few for " + workers + " workers");
        }
        return new Block(blockStart(items, workers, peers.rank()), blockStart(items, workers, peers.rank() + 1));
    }
}
