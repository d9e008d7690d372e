package io.fastrmi.netpipe.bench.compare;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The C floors beside the Java peers: libfabric's {@code fi_pingpong} over shm and UCX's
 * {@code ucx_perftest} tag latency over shared memory, 64 B one way, where the tools are installed
 * (Debian's libfabric-bin and ucx-utils). A floor that cannot run says why instead of a figure.
 */
public final class CFloors {

    /** One floor: its name, and its one-way latency in microseconds or why there is none. */
    record Floor(String name, Optional<Double> oneWayMicros, String why) {
    }

    private static final Pattern FI_RESULT = Pattern.compile("^64\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+([0-9.]+)\\s+\\S+\\s*$");
    private static final Pattern UCX_RESULT = Pattern.compile("^Final:\\s+\\d+\\s+([0-9.]+)\\s+.*$");
    private static final long LIMIT_SECONDS = 60;

    private CFloors() {
    }

    /** Runs each floor; the tools' output goes to {@code dir}. */
    static List<Floor> measure(int iterations, Path dir) {
        List<Floor> floors = new ArrayList<>();
        floors.add(run(dir, "fi_pingpong shm", port -> List.of("fi_pingpong", "-p", "shm", "-e", "rdm", "-I", String.valueOf(iterations),
                "-S", "64", "-B", String.valueOf(port)), port -> List.of("fi_pingpong", "-p", "shm", "-e", "rdm", "-I",
                String.valueOf(iterations), "-S", "64", "-P", String.valueOf(port), "localhost"), FI_RESULT));
        floors.add(run(dir, "ucx_perftest shm", port -> List.of("ucx_perftest", "-p", String.valueOf(port)),
                port -> List.of("ucx_perftest", "localhost", "-p", String.valueOf(port), "-t", "tag_lat", "-s", "64", "-n",
                        String.valueOf(iterations)), UCX_RESULT));
        return floors;
    }

    private interface CommandFor {
        List<String> at(int port);
    }

    private static Floor run(Path dir, String name, CommandFor server, CommandFor client, Pattern result) {
        String tool = server.at(0).get(0);
        if (!onPath(tool)) {
            return new Floor(name, Optional.empty(), tool + " is not installed");
        }
        Process serverProcess = null;
        try {
            int port = freePort();
            String file = name.replace(' ', '-');
            Path serverOut = dir.resolve(file + "-server.txt");
            serverProcess = start(server.at(port), serverOut);
            Thread.sleep(500); // the server's listening socket; a client that comes too early retries below
            for (int attempt = 0; attempt < 3; attempt++) {
                Path clientOut = dir.resolve(file + "-client.txt");
                Process clientProcess = start(client.at(port), clientOut);
                if (!clientProcess.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                    clientProcess.destroyForcibly();
                    return new Floor(name, Optional.empty(), "did not finish in " + LIMIT_SECONDS + " s");
                }
                for (String line : Files.readAllLines(clientOut, StandardCharsets.UTF_8)) {
                    Matcher matcher = result.matcher(line.trim());
                    if (matcher.matches()) {
                        return new Floor(name, Optional.of(Double.parseDouble(matcher.group(1))), "");
                    }
                }
                Thread.sleep(500);
            }
            return new Floor(name, Optional.empty(), "no result line: " + lastLine(serverOut));
        } catch (IOException e) {
            return new Floor(name, Optional.empty(), e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Floor(name, Optional.empty(), "interrupted");
        } finally {
            if (serverProcess != null) {
                serverProcess.destroyForcibly();
            }
        }
    }

    private static Process start(List<String> command, Path output) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().put("UCX_TLS", "posix,cma,self");
        return builder.start();
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    private static String lastLine(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        return lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1);
    }
}
