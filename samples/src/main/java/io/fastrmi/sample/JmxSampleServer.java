package io.fastrmi.sample;

import java.lang.management.ManagementFactory;
import java.rmi.registry.LocateRegistry;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;

/**
 * JMX over RMI as applications set it up by hand: a {@link Counter} MBean in the platform MBean
 * server, an RMI registry on a free port (or {@code --port P}), and an RMI connector server bound in
 * it as {@code jmxrmi} ({@code service:jmx:rmi:///jndi/rmi://127.0.0.1:P/jmxrmi}); then
 * {@code READY port=P}. It stops the connector and exits on {@code quit} or end of input.
 *
 * <p>Usage: {@code JmxSampleServer [--port P]}
 */
public final class JmxSampleServer {

    private JmxSampleServer() {
    }

    public static JMXServiceURL url(String host, int port) throws java.net.MalformedURLException {
        return new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + host + ":" + port + "/jmxrmi");
    }

    public static void main(String[] args) throws Exception {
        int requested = ServerMains.requestedPort(args);
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        mbs.registerMBean(new Counter(), new ObjectName(Counter.NAME));

        int port = ServerMains.registry(requested, LocateRegistry::createRegistry).port();
        JMXConnectorServer connector = JMXConnectorServerFactory.newJMXConnectorServer(url("127.0.0.1", port), null, mbs);
        connector.start();
        ServerMains.readyUntilQuit(port);
        connector.stop();
        System.exit(0);
    }
}
