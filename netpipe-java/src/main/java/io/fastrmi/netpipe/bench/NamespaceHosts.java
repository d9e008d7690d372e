package io.fastrmi.netpipe.bench;

import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.TestNetwork;
import java.util.List;

/**
 * The server in network namespace host1, the client in host2, on a private segment (veth pairs on
 * a bridge): what two hosts see of each other, without shared memory between them.
 */
public final class NamespaceHosts implements Hosts {

    private static final String SERVER = "host1";
    private static final String CLIENT = "host2";

    private final TestNetwork net;

    private NamespaceHosts(TestNetwork net) {
        this.net = net;
    }

    /** Makes the two namespaces (needs root: check {@link TestNetwork#available()} first). */
    public static NamespaceHosts create() {
        return new NamespaceHosts(TestNetwork.create(SERVER, CLIENT));
    }

    @Override
    public String description() {
        return "server in netns " + SERVER + " (" + net.address(SERVER) + "), client in netns " + CLIENT + " ("
                + net.address(CLIENT) + ")";
    }

    @Override
    public JvmLauncher server(JvmLauncher jvm) {
        return jvm.wrapper(net.exec(SERVER)).jvmArgs(net.jvmFlags(SERVER));
    }

    @Override
    public JvmLauncher client(JvmLauncher jvm) {
        return jvm.wrapper(net.exec(CLIENT)).jvmArgs(net.jvmFlags(CLIENT));
    }

    @Override
    public List<String> serverArgs() {
        return List.of("--host", net.address(SERVER));
    }

    @Override
    public String serverAddress() {
        return net.address(SERVER);
    }

    /** Both hosts' addresses, as NativeMultiHostIT's config names them. */
    @Override
    public String insideSection() {
        return "[host " + net.address(SERVER) + " " + net.address(CLIENT) + "]";
    }

    @Override
    public void close() {
        net.close();
    }
}
