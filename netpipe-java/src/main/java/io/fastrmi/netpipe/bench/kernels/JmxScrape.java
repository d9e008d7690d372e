package io.fastrmi.netpipe.bench.kernels;

import java.io.IOException;
import java.util.Arrays;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A monitoring scrape through the JDK's own JMX RMI client: every readable attribute of every MBean
 * of the server JVM's platform MBean server (a query, then each MBean's info and attributes: some 50
 * RMI calls, most doing real work on the server). The {@code jmx-scrape} kernel times one per call.
 */
final class JmxScrape {

    private final BenchService service;
    private MBeanServerConnection mbeans;

    JmxScrape(BenchService service) {
        this.service = service;
    }

    /** Reads every readable attribute of every MBean; returns how many values came back. */
    int readAll() throws IOException, JMException {
        MBeanServerConnection connection = connection();
        int values = 0;
        for (ObjectName mbean : connection.queryNames(null, null)) {
            try {
                String[] readable = Arrays.stream(connection.getMBeanInfo(mbean).getAttributes())
                        .filter(MBeanAttributeInfo::isReadable).map(MBeanAttributeInfo::getName).toArray(String[]::new);
                values += connection.getAttributes(mbean, readable).size();
            } catch (InstanceNotFoundException e) {
                // unregistered since the query: the next scrape no longer lists it
            }
        }
        return values;
    }

    /** The connection, made at the first scrape and kept, as a monitoring agent keeps its own. */
    private MBeanServerConnection connection() throws IOException {
        if (mbeans == null) {
            mbeans = JMXConnectorFactory.connect(new JMXServiceURL(service.jmxAddress())).getMBeanServerConnection();
        }
        return mbeans;
    }
}
