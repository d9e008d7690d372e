package io.fastrmi.netpipe.bench.mesh;

import io.fastrmi.netpipe.bench.BenchServer;
import io.fastrmi.netpipe.bench.kernels.BenchService;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * One host of the mesh benchmark ({@link Mesh}): serves {@link BenchService} as {@link BenchServer}
 * does and prints {@code READY <port>}, then takes commands on standard input:
 * <ul>
 * <li>{@code PEERS <self> <address:port>,...}: every host of the mesh, this one at index self;
 * <li>{@code RUN <pattern> <calls> <seq>}: {@value #THREADS} threads each make {@code calls} int
 * echoes to the hosts the pattern names, in turn, and check each answer; then prints
 * {@code DONE <seq> <calls made> <calls lost> <nanoseconds>} (a lost call threw or answered
 * wrong; the first such is printed as {@code LOST ...} before);
 * <li>{@code quit} or the end of input: exits.
 * </ul>
 */
public final class MeshPeer {

    public static final Pattern DONE = Pattern.compile("^DONE (\\d+) (\\d+) (\\d+) (\\d+)$");
    static final int THREADS = 8;

    private final List<BenchService> hosts = new ArrayList<>();
    private int self;

    private MeshPeer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--host")) {
            System.setProperty("java.rmi.server.hostname", args[1]);
        } else if (args.length != 0) {
            System.err.println("usage: MeshPeer [--host ADDRESS]");
            System.exit(2);
        }
        System.out.println("READY " + BenchServer.start(0));
        System.out.flush();
        MeshPeer peer = new MeshPeer();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = stdin.readLine()) != null && !line.trim().equals("quit")) {
            String[] words = line.trim().split(" ");
            switch (words[0]) {
                case "PEERS" -> peer.connect(Integer.parseInt(words[1]), words[2].split(","));
                case "RUN" -> peer.run(MeshPattern.ofLabel(words[1]), Integer.parseInt(words[2]), words[3]);
                default -> System.err.println("MeshPeer: unknown command " + line);
            }
            System.out.flush();
        }
        System.exit(0);
    }

    private void connect(int self, String[] addresses) throws Exception {
        this.self = self;
        hosts.clear();
        for (String address : addresses) {
            int colon = address.lastIndexOf(':');
            hosts.add((BenchService) LocateRegistry.getRegistry(address.substring(0, colon),
                    Integer.parseInt(address.substring(colon + 1))).lookup(BenchService.NAME));
        }
        System.out.println("CONNECTED " + hosts.size());
    }

    private void run(MeshPattern pattern, int calls, String seq) throws InterruptedException {
        List<Integer> targets = pattern.targets(self, hosts.size());
        AtomicLong made = new AtomicLong();
        AtomicLong lost = new AtomicLong();
        AtomicReference<String> firstLoss = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS && !targets.isEmpty(); t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                awaitQuietly(start);
                for (int i = 0; i < calls; i++) {
                    int value = (self << 24) ^ (thread << 16) ^ i;
                    try {
                        int answer = hosts.get(targets.get((thread + i) % targets.size())).echo(value);
                        if (answer != value) {
                            throw new IllegalStateException("echo(" + value + ") answered " + answer);
                        }
                    } catch (Exception e) {
                        lost.incrementAndGet();
                        firstLoss.compareAndSet(null, e.toString());
                    }
                    made.incrementAndGet();
                }
            }, "mesh-" + t);
            worker.start();
            threads.add(worker);
        }
        long began = System.nanoTime();
        start.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        long nanos = System.nanoTime() - began;
        if (firstLoss.get() != null) {
            System.out.println("LOST " + firstLoss.get());
        }
        System.out.println("DONE " + seq + " " + made.get() + " " + lost.get() + " " + nanos);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
