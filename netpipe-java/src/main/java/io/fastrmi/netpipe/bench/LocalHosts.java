package io.fastrmi.netpipe.bench;

import io.fastrmi.testkit.JvmLauncher;
import java.util.List;

/** Server and client on this host, over loopback. */
public final class LocalHosts implements Hosts {

    @Override
    public String description() {
        return "both JVMs on this host";
    }

    @Override
    public JvmLauncher server(JvmLauncher jvm) {
        return jvm;
    }

    @Override
    public JvmLauncher client(JvmLauncher jvm) {
        return jvm;
    }

    @Override
    public List<String> serverArgs() {
        return List.of();
    }

    @Override
    public String serverAddress() {
        return "localhost";
    }

    @Override
    public String insideSection() {
        return "[host local]";
    }

    @Override
    public void close() {
    }
}
