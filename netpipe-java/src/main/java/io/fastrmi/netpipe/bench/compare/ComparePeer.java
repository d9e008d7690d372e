package io.fastrmi.netpipe.bench.compare;

import io.fastrmi.netpipe.bench.report.Column;
import java.util.Optional;

/**
 * One peer of a side-by-side run: {@code stock} (Java RMI, no agent), {@code dirmi} (Cojen Dirmi) and
 * {@code grpc} (gRPC-java over Netty), reference peers with their own protocols, or the agent on a transport, named as a bench column is
 * ({@code tcp}, {@code ucx:shm}, {@code ofi:shm@wait=spin}, ...), with the lean format unless it says
 * {@code @optimizations=none}.
 */
public record ComparePeer(String name, String protocol, Optional<Column> agent) {

    static ComparePeer parse(String spec) {
        return switch (spec) {
            case "stock" -> new ComparePeer(spec, "rmi", Optional.empty());
            case "dirmi" -> new ComparePeer(spec, "dirmi", Optional.empty());
            case "grpc" -> new ComparePeer(spec, "grpc", Optional.empty());
            default -> new ComparePeer(spec, "rmi", Optional.of(Column.agentOn(spec)));
        };
    }

    boolean isStock() {
        return name.equals("stock");
    }

    /** For the table's header: what the peer is. */
    String label() {
        if (agent.isEmpty()) {
            return switch (name) {
                case "stock" -> "stock RMI";
                case "dirmi" -> "Dirmi";
                default -> "gRPC-java";
            };
        }
        return "agent " + name;
    }

    String fileName() {
        return name.replaceAll("[^A-Za-z0-9_.-]", "_");
    }
}
