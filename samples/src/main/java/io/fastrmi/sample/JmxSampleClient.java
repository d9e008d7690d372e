package io.fastrmi.sample;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;

/**
 * Connects to {@link JmxSampleServer} with {@link JMXConnectorFactory#connect}, increments the
 * {@link Counter} twice, reads its {@code Count} and the platform's {@code Runtime.VmName}, and prints
 * one {@code JMX} line for each, then {@code DONE}.
 *
 * <p>Usage: {@code JmxSampleClient host port}
 */
public final class JmxSampleClient {

    private JmxSampleClient() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: JmxSampleClient host port");
            System.exit(2);
        }
        try (JMXConnector connector = JMXConnectorFactory.connect(
                JmxSampleServer.url(args[0], Integer.parseInt(args[1])), null)) {
            MBeanServerConnection connection = connector.getMBeanServerConnection();
            ObjectName counter = new ObjectName(Counter.NAME);
            for (int i = 0; i < 2; i++) {
                System.out.println("JMX increment() = " + connection.invoke(counter, "increment", null, null));
            }
            System.out.println("JMX Count = " + connection.getAttribute(counter, "Count"));
            System.out.println("JMX Runtime.VmName = "
                    + connection.getAttribute(new ObjectName("java.lang:type=Runtime"), "VmName"));
        }
        System.out.println(SampleClient.DONE);
        System.out.flush();
        System.exit(0);
    }
}
