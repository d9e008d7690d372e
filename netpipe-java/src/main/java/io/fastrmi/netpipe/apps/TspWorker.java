package io.fastrmi.netpipe.apps;

import java.rmi.Remote;

/** A TSP worker takes no calls (it only calls the queue); it exports one of these, as every worker joins with one. */
public interface TspWorker extends Remote {
}
