package io.fastrmi.sample;

import java.util.concurrent.atomic.AtomicInteger;

/** A standard MBean that counts; {@link JmxSampleServer} registers it as {@value #NAME}. */
public final class Counter implements CounterMBean {

    public static final String NAME = "io.fastrmi.sample:type=Counter";

    private final AtomicInteger count = new AtomicInteger();

    @Override
    public int getCount() {
        return count.get();
    }

    @Override
    public int increment() {
        return count.incrementAndGet();
    }
}
