package io.fastrmi.sample;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.ExportException;
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
        int requested = args.length == 2 && args[0].equals("--port") ? Integer.parseInt(args[1]) : 0;
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        mbs.registerMBean(new Counter(), new ObjectName(Counter.NAME));

        Registry registry = null;
        int port = requested;
        // A port that was free a moment ago may be taken by a parallel run: pick another and retry.
        for (int attempt = 0; registry == null; attempt++) {
            if (requested == 0) {
                port = freePort();
            }
            try {
                registry = LocateRegistry.createRegistry(port);
            } catch (ExportException e) {
                if (requested != 0 || attempt >= 20) {
                    throw e;
                }
            }
        }
        JMXConnectorServer connector = JMXConnectorServerFactory.newJMXConnectorServer(url("127.0.0.1", port), null, mbs);
        connector.start();
        System.out.println("READY port=" + port);
        System.out.flush();

        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = stdin.readLine()) != null && !line.trim().equals("quit")) {
            // Only "quit" (or end of input) means something.
        }
        connector.stop();
        System.exit(0);
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }
}
