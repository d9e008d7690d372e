package io.fastrmi.netpipe.np;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The KaRMI kernels (seed 001, section 6.1) as a netpipe-java exchange: one call is one exchange. The
 * object the {@code obj}, {@code pingpong} and {@code star} kernels send is a {@link KarmiObject}; its
 * array bytes are the point's size (0 for the other objects).
 */
public final class KernelExchange implements Exchange {

    /** The kernels by their command-line names. */
    public enum Kernel {
        PING("ping"), PING_II("ping-ii"), PING_IIFF("ping-iiff"), OBJ("obj"), PINGPONG("pingpong"), STAR("star");

        public final String cliName;

        Kernel(String cliName) {
            this.cliName = cliName;
        }

        public static Kernel named(String name) {
            for (Kernel kernel : values()) {
                if (kernel.cliName.equals(name)) {
                    return kernel;
                }
            }
            throw new IllegalArgumentException("no kernel '" + name + "'; there are ping, ping-ii, ping-iiff, obj, pingpong, star");
        }
    }

    private final Calls service;
    private final Kernel kernel;
    private final KarmiObject object;
    private final Object sent;
    private final int clients;
    private final ExecutorService starThreads;

    /** {@code clients}: {@code star}'s threads. */
    public KernelExchange(Calls service, Kernel kernel, KarmiObject object, int clients) {
        if (kernel == Kernel.STAR && clients < 1) {
            throw new IllegalArgumentException("star needs at least one client, not " + clients);
        }
        this.service = service;
        this.kernel = kernel;
        this.object = object;
        this.sent = object.create();
        this.clients = clients;
        this.starThreads = kernel == Kernel.STAR ? Executors.newFixedThreadPool(clients) : null;
    }

    @Override
    public String describe() {
        return switch (kernel) {
            case PING -> "ping()";
            case PING_II -> "ping(int,int)";
            case PING_IIFF -> "ping(int,int,float,float)";
            case OBJ -> "ping(" + object.name() + ")";
            case PINGPONG -> "pingpong(" + object.name() + ")";
            case STAR -> "star(" + object.name() + ") x" + clients;
        };
    }

    @Override
    public boolean oneWay() {
        return false;
    }

    /** A kernel's message is its object: the requested size does not change it. */
    @Override
    public int bytesFor(int size) {
        return kernel == Kernel.OBJ || kernel == Kernel.PINGPONG || kernel == Kernel.STAR ? object.arrayBytes() : 0;
    }

    @Override
    public long run(int size, int repeats) throws Exception {
        if (kernel == Kernel.STAR) {
            return star(repeats);
        }
        Object last = null;
        long start = System.nanoTime();
        for (int i = 0; i < repeats; i++) {
            last = call();
        }
        long elapsed = System.nanoTime() - start;
        check(last);
        return elapsed;
    }

    private Object call() throws Exception {
        switch (kernel) {
            case PING:
                service.ping();
                return sent;
            case PING_II:
                service.ping(1, 2);
                return sent;
            case PING_IIFF:
                service.ping(1, 2, 3f, 4f);
                return sent;
            case OBJ:
                return service.ping(sent);
            default:
                return service.pingpong(sent);
        }
    }

    private void check(Object last) throws IOException {
        if (!Objects.deepEquals(sent, last)) {
            throw new IOException(describe() + " returned " + last + ", not what was sent");
        }
    }

    /**
     * {@code clients} threads call {@code ping(obj)} at once, {@code repeats} times, meeting at a barrier
     * before each call: the time is the whole run's, so a repeat is one round of simultaneous calls.
     */
    private long star(int repeats) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(clients);
        List<Future<Object>> results = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < clients; t++) {
            results.add(starThreads.submit(() -> {
                Object last = null;
                for (int i = 0; i < repeats; i++) {
                    barrier.await();
                    last = service.ping(sent);
                }
                return last;
            }));
        }
        try {
            for (Future<Object> result : results) {
                check(result.get());
            }
        } catch (ExecutionException e) {
            barrier.reset();
            Throwable cause = e.getCause();
            throw cause instanceof Exception ex && !(cause instanceof BrokenBarrierException) ? ex : e;
        }
        return System.nanoTime() - start;
    }

    @Override
    public void close() {
        if (starThreads != null) {
            starThreads.shutdownNow();
        }
    }
}
