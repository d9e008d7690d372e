package io.fastrmi.netpipe.bench;

import io.fastrmi.testkit.JvmLauncher;
import java.util.List;

/** Where the server and the client JVMs run: both on this host, or in two network namespaces. */
public interface Hosts extends AutoCloseable {

    /** For the header line. */
    String description();

    /** Puts the server JVM in its place. */
    JvmLauncher server(JvmLauncher jvm);

    /** Puts the client JVM in its place. */
    JvmLauncher client(JvmLauncher jvm);

    /** Extra arguments of {@link BenchServer}. */
    List<String> serverArgs();

    /** What the client connects to. */
    String serverAddress();

    /** The config section header that makes both ends inside, e.g. {@code [host local]}. */
    String insideSection();

    @Override
    void close();
}
