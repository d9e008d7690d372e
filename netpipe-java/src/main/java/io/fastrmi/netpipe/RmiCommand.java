package io.fastrmi.netpipe;

import io.fastrmi.netpipe.np.RmiArrayExchange;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "rmi",
        description = "Echo (or send one way) arrays over RMI; sizes are the arrays' bytes.")
final class RmiCommand extends ClientCommand {

    @Option(names = "--type", description = "byte, int or double (default ${DEFAULT-VALUE})")
    RmiArrayExchange.Type type = RmiArrayExchange.Type.BYTE;

    @Option(names = "--one-way", description = "the array goes to the server; only the call's completion comes back")
    boolean oneWay;

    @Override
    public Integer call() throws Exception {
        try (AutoCloseableCalls calls = peer.connect();
                RmiArrayExchange exchange = new RmiArrayExchange(calls.calls(), type, oneWay)) {
            return sweep.sweep(exchange, sweep.sizes());
        }
    }
}
