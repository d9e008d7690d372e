package io.fastrmi.netpipe;

import io.fastrmi.netpipe.np.Point;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * netpipe-java: NetPIPE's ping-pong for Java sockets and Java RMI, and KaRMI's RMI kernels. A server
 * ({@code netpipe-java server --mode socket|rmi}) and a client ({@code socket}, {@code rmi} or
 * {@code kernel}) in two JVMs; the client writes NetPIPE's np.out (bytes, Mbps, seconds) and its
 * progress to stderr.
 */
@Command(name = "netpipe-java", mixinStandardHelpOptions = true, version = "netpipe-java 0.1.0",
        description = "NetPIPE-style ping-pong for Java sockets and RMI, and KaRMI's RMI kernels.",
        subcommands = {ServerCommand.class, SocketCommand.class, RmiCommand.class, KernelCommand.class,
                SuiteCommand.class, io.fastrmi.netpipe.bench.compare.Compare.class, BreakdownCommand.class})
public final class NetPipe {

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * The command line; a bad value found while running (an object's name, a kernel's) or a kernel the
     * peer cannot run (pingpong on gRPC) is a usage error, exit 2, said in one line. An option given
     * twice takes its last value (scripts/compare.sh passes its defaults first).
     */
    public static CommandLine commandLine() {
        return new CommandLine(new NetPipe()).setCaseInsensitiveEnumValuesAllowed(true).setOverwrittenOptionsAllowed(true)
                .setExecutionExceptionHandler((e, line, parsed) -> {
                    if (e instanceof IllegalArgumentException || e instanceof UnsupportedOperationException) {
                        line.getErr().println("netpipe-java " + line.getCommandName() + ": " + e.getMessage());
                        return 2;
                    }
                    throw e;
                });
    }

    /**
     * {@code POINT bytes Mbps seconds repeats call_us}: a point as np.out has it, its exchanges per trial, and
     * the best trial's time per exchange (a KaRMI kernel's time per call) in microseconds.
     */
    static String pointLine(Point point) {
        return String.format(Locale.ROOT, "POINT %d %.3f %.9f %d %.3f", point.bytes(), point.mbps(), point.seconds(),
                point.repeats(), point.bestRoundTripSeconds() * 1e6);
    }
}
