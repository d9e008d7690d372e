package io.fastrmi.netpipe.bench.kernels;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntUnaryOperator;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A monitoring scrape through the JDK's own JMX RMI client: every readable attribute of every MBean
 * of the server JVM's platform MBean server (a query, then each MBean's info and attributes: some 50
 * RMI calls, most doing real work on the server). One timed call is one whole scrape.
 */
public final class JmxScrapeKernel implements Kernel {

    private final String name;
    private final IntUnaryOperator scale;
    private final BenchService service;
    private MBeanServerConnection mbeans;

    public JmxScrapeKernel(String name, IntUnaryOperator scale, BenchService service) {
        this.name = name;
        this.scale = scale;
        this.service = service;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int scaled(int n) {
        return scale.applyAsInt(n);
    }

    @Override
    public long[] run(int warmup, int calls) throws IOException, JMException {
        MBeanServerConnection connection = connection();
        for (int i = 0; i < warmup; i++) {
            check(scrape(connection));
        }
        long[] nanos = new long[calls];
        for (int i = 0; i < calls; i++) {
            long start = System.nanoTime();
            int values = scrape(connection);
            nanos[i] = System.nanoTime() - start;
            check(values);
        }
        return nanos;
    }

    /** The connection, made at the first scrape and kept, as a monitoring agent keeps its own. */
    private MBeanServerConnection connection() throws IOException {
        if (mbeans == null) {
            JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(service.jmxAddress()));
            mbeans = connector.getMBeanServerConnection();
        }
        return mbeans;
    }

    /** Reads every readable attribute of every MBean; returns how many values came back. */
    private static int scrape(MBeanServerConnection connection) throws IOException, JMException {
        int values = 0;
        for (ObjectName mbean : connection.queryNames(null, null)) {
            String[] readable;
            try {
                readable = Arrays.stream(connection.getMBeanInfo(mbean).getAttributes())
                        .filter(MBeanAttributeInfo::isReadable).map(MBeanAttributeInfo::getName).toArray(String[]::new);
                values += connection.getAttributes(mbean, readable).size();
            } catch (InstanceNotFoundException e) {
                // unregistered since the query: the next scrape no longer lists it
            }
        }
        return values;
    }

    private void check(int values) {
        WrongResultException.expect(values > 0, () -> name + ": a scrape read no attribute");
    }
}
