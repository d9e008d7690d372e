package io.fastrmi.netpipe;

import picocli.CommandLine.Option;

/** {@code --help} alone: {@code -h} is NetPIPE's host option. */
final class HelpOption {
    @Option(names = "--help", usageHelp = true, description = "show this help and exit")
    boolean help;
}
