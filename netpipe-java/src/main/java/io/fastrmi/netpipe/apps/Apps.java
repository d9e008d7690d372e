package io.fastrmi.netpipe.apps;

import java.util.List;

/** The applications by name, at each size: {@code quick} (correctness, seconds) and {@code measure} (timing). */
final class Apps {

    static final List<String> NAMES = List.of("sor", "asp", "tsp", "nbody");
    static final List<String> SIZES = List.of("quick", "measure");

    private Apps() {
    }

    static ParallelApp of(String name, String size) {
        boolean quick = switch (size) {
            case "quick" -> true;
            case "measure" -> false;
            default -> throw new IllegalArgumentException("no size " + size + ": one of " + SIZES);
        };
        return switch (name) {
            case "sor" -> quick ? new Sor(66, 20) : new Sor(1002, 2000);
            case "asp" -> quick ? new Asp(64) : new Asp(2000);
            case "tsp" -> quick ? new Tsp(9) : new Tsp(21);
            case "nbody" -> quick ? new NBody(48, 8) : new NBody(600, 600);
            default -> throw new IllegalArgumentException("no application " + name + ": one of " + NAMES);
        };
    }
}
