package io.fastrmi.netpipe;

import io.fastrmi.netpipe.breakdown.CallBreakdown;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine;

@Command(name = "breakdown",
        description = "Where RMI calls' time went, from JFR recordings with method sampling (settings=profile,"
                + " stackdepth=256): network, serialization, protocol, DGC, application (seed 003's figures 2 and 6).")
final class BreakdownCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @picocli.CommandLine.Parameters(paramLabel = "RECORDING", arity = "1..*", description = "JFR files, e.g. a client's and a server's")
    List<Path> recordings;

    @Override
    public Integer call() throws Exception {
        for (Path recording : recordings) {
            System.out.print(CallBreakdown.of(recording).report(recording.toString()));
        }
        return 0;
    }
}
