package io.fastrmi.netpipe;

import io.fastrmi.netpipe.np.SocketExchange;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "socket",
        description = "Ping-pong over java.net.Socket (over FastRMI's sockets under the agent with scope = jvm).")
final class SocketCommand extends ClientCommand {

    @Option(names = "--one-way", description = "messages go one way; the server answers once per trial")
    boolean oneWay;

    @Override
    public Integer call() throws Exception {
        try (SocketExchange exchange = new SocketExchange(peer.host, peer.port, oneWay)) {
            return sweep.sweep(exchange, sweep.sizes());
        }
    }
}
