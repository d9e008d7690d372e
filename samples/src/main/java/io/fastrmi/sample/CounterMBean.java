package io.fastrmi.sample;

/** The management interface of {@link Counter}, a standard MBean. */
public interface CounterMBean {

    int getCount();

    /** Adds one and returns the new count. */
    int increment();
}
