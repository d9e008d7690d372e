package io.fastrmi.netpipe.np;

/**
 * What a sweep measures: messages of a size sent to the peer and back (or only to it, {@link #oneWay()}),
 * as many times as asked.
 */
public interface Exchange extends AutoCloseable {

    /** How the point is named in output: the mode and what it sends. */
    String describe();

    /** True when a message goes only to the peer (the call returns nothing but its completion). */
    boolean oneWay();

    /**
     * The bytes a message of {@code size} requested bytes really carries: an array of ints or doubles holds
     * whole elements, so its size rounds up to one.
     */
    int bytesFor(int size);

    /**
     * Makes {@code repeats} exchanges of {@code bytesFor(size)} bytes and returns how long they took, in
     * nanoseconds. Every reply is checked: a wrong one throws.
     */
    long run(int size, int repeats) throws Exception;

    @Override
    void close() throws Exception;
}
