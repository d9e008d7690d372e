package io.fastrmi.netpipe;

import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** What every client command takes: {@code --help}, where the server is, and NetPIPE's sweep options. */
abstract class ClientCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Mixin
    PeerOptions peer;

    @Mixin
    SweepOptions sweep;
}
