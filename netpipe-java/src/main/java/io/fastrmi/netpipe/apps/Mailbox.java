package io.fastrmi.netpipe.apps;

import java.util.HashMap;
import java.util.Map;

/**
 * Data other workers sent to this one, by tag, until its computing thread takes it: the remote
 * methods put (on RMI's threads), the worker takes (waiting until it is there). A tag is put once.
 */
final class Mailbox<T> {

    private final Map<Long, T> items = new HashMap<>();

    synchronized void put(long tag, T item) {
        if (items.putIfAbsent(tag, item) != null) {
            throw new IllegalStateException("tag " + tag + " was sent twice");
        }
        notifyAll();
    }

    synchronized T take(long tag) throws InterruptedException {
        T item;
        while ((item = items.remove(tag)) == null) {
            wait();
        }
        return item;
    }
}
