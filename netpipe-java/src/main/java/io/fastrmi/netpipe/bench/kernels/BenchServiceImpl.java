package io.fastrmi.netpipe.bench.kernels;

import io.fastrmi.netpipe.bench.objects.Node;
import io.fastrmi.netpipe.bench.objects.Order;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.rmi.RemoteException;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;

/** The server's side of the kernels: as little work as each kernel needs, so RMI's cost shows. */
public final class BenchServiceImpl implements BenchService {

    private JMXConnectorServer jmx;

    @Override
    public synchronized String jmxAddress() throws RemoteException {
        try {
            if (jmx == null) {
                // No registry: the address carries the connector's stub, exported on RMI's default hostname.
                jmx = JMXConnectorServerFactory.newJMXConnectorServer(new JMXServiceURL("rmi", null, 0), null,
                        ManagementFactory.getPlatformMBeanServer());
                jmx.start();
            }
            return jmx.getAddress().toString();
        } catch (IOException e) {
            throw new RemoteException("cannot start the JMX connector server", e);
        }
    }

    @Override
    public void ping() {
    }

    @Override
    public int echo(int value) {
        return value;
    }

    @Override
    public Node echo(Node tree) {
        return tree;
    }

    @Override
    public Order transform(Order order) {
        return order.transformed();
    }

    @Override
    public double[] echo(double[] values) {
        return values;
    }

    @Override
    public int callback(Callback callback) throws RemoteException {
        return callback.call(CALLBACK_ARGUMENT) + 1;
    }

    @Override
    public void ping(int a, int b) {
    }

    @Override
    public void ping(int a, int b, float c, float d) {
    }

    @Override
    public Object ping(Object obj) {
        return obj;
    }

    @Override
    public Object pingpong(Object obj, Pong pong) throws RemoteException {
        return pong.pong(obj);
    }

    @Override
    public byte[] echo(byte[] values) {
        return values;
    }

    @Override
    public int[] echo(int[] values) {
        return values;
    }

    @Override
    public void take(byte[] values) {
    }

    @Override
    public void take(int[] values) {
    }

    @Override
    public void take(double[] values) {
    }

    @Override
    public long[] processCost() {
        return ThreadCosts.ofThisProcess().toArray();
    }

    @Override
    public long compilationMillis() {
        return JitSettling.compilationMillisOfThisProcess();
    }
}
