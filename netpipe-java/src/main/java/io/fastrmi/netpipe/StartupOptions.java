package io.fastrmi.netpipe;

import io.fastrmi.testkit.Jdk;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of the start-up measurements ({@link StartupCost}, {@link RmiStartCost}): the agent,
 * its config (null: the built-in one), the JDKs (this one if none), runs of each, and (where
 * {@code idle} is taken) how long the measured JVM idles after its call.
 */
record StartupOptions(Path agent, Path config, List<Jdk> jdks, int runs, long idleMillis) {

    /** Parses {@code args}; prints {@code usage} and exits 2 without an agent. */
    static StartupOptions parse(String[] args, String usage, int defaultRuns, boolean idle) {
        Path agent = null;
        Path config = null;
        List<Jdk> jdks = new ArrayList<>();
        int runs = defaultRuns;
        long idleMillis = 3000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--agent" -> agent = Path.of(value);
                case "--jdk" -> jdks.add(Jdk.at(Path.of(value)).orElseThrow(() -> new IllegalArgumentException("not a JDK: " + value)));
                case "--runs" -> runs = Integer.parseInt(value);
                case "--config" -> config = Path.of(value);
                case "--idle-ms" -> {
                    if (!idle) {
                        throw new IllegalArgumentException("unknown option --idle-ms");
                    }
                    idleMillis = Long.parseLong(value);
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (agent == null || args.length % 2 != 0) {
            System.err.println("usage: " + usage);
            System.exit(2);
        }
        if (jdks.isEmpty()) {
            jdks.add(Jdk.at(Path.of(System.getProperty("java.home"))).orElseThrow());
        }
        return new StartupOptions(agent, config, List.copyOf(jdks), runs, idleMillis);
    }
}
