package io.fastrmi.netpipe;

import io.fastrmi.netpipe.np.KarmiObject;
import io.fastrmi.netpipe.np.KernelExchange;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "kernel",
        description = "One of KaRMI's kernels: ping, ping-ii, ping-iiff, obj, pingpong or star, with an object.")
final class KernelCommand extends ClientCommand {

    @Option(names = "--kernel", required = true, description = "ping, ping-ii, ping-iiff, obj, pingpong or star")
    String kernel;

    @Option(names = "--obj", description = "the object sent: " + KarmiObject.NAMES + " (default ${DEFAULT-VALUE})")
    String object = "null";

    @Option(names = "--clients", description = "star's client threads (default ${DEFAULT-VALUE})")
    int clients = 8;

    @Override
    public Integer call() throws Exception {
        KernelExchange.Kernel chosen = KernelExchange.Kernel.named(kernel);
        KarmiObject sent = KarmiObject.parse(object);
        try (AutoCloseableCalls calls = peer.connect();
                KernelExchange exchange = new KernelExchange(calls.calls(), chosen, sent, clients)) {
            return sweep.sweep(exchange, List.of(0));
        }
    }
}
