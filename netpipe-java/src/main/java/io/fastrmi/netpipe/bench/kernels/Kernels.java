package io.fastrmi.netpipe.bench.kernels;

import io.fastrmi.netpipe.bench.objects.Node;
import io.fastrmi.netpipe.bench.objects.Order;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntUnaryOperator;

/** The kernels by name, each with the data it sends and the check of what comes back. */
public final class Kernels {

    /** Every kernel, in the order they run by default. */
    public static final List<String> ALL = List.of("null", "echo-int", "tree15", "transform", "callback", "echo-1mib", "star8",
            "paced-null", "paced-tree15", "idle2ms-null", "idle10ms-null", "jmx-scrape");

    private static final int TREE_DEPTH = 4; // 15 nodes
    private static final int ORDER_ITEMS = 16;
    private static final int MIB_OF_DOUBLES = 131_072;
    private static final int STAR_THREADS = 8;
    /** The bulk kernel's calls each move 2 MiB: a twentieth as many, but enough for a p99. */
    private static final IntUnaryOperator BULK = Kernels::bulkCalls;
    private static final IntUnaryOperator SAME = n -> n;
    /** The client's work before each paced call: longer than any spin, as a job's own work between calls. */
    private static final long THINK_NANOS = 200_000;
    private static final IntUnaryOperator PACED = Kernels::pacedCalls;
    private static final IntUnaryOperator IDLE = Kernels::idleCalls;
    private static final IntUnaryOperator SCRAPES = Kernels::scrapes;

    private Kernels() {
    }

    /** How many calls the 1 MiB echo makes when asked for {@code n}. */
    public static int bulkCalls(int n) {
        return n == 0 ? 0 : Math.max(50, n / 20);
    }

    /** How many calls a paced kernel makes when asked for {@code n}: each takes a think time more. */
    public static int pacedCalls(int n) {
        return n == 0 ? 0 : Math.max(50, n / 4);
    }

    /** How many calls the idle kernel makes when asked for {@code n}: each sleeps first, so a hundredth. */
    public static int idleCalls(int n) {
        return n == 0 ? 0 : Math.max(50, n / 100);
    }

    /** How many scrapes the JMX kernel makes when asked for {@code n} calls: a scrape is some 50 calls of real work. */
    public static int scrapes(int n) {
        return n == 0 ? 0 : Math.max(10, n / 200);
    }

    /** Null calls, each after the client slept {@code millis}: both ends asleep when it comes (stock RMI pings first). */
    private static Kernel idleNull(String name, long millis, BenchService service) {
        return SerialKernel.<Void>idle(name, IDLE, millis, i -> {
            service.ping();
            return null;
        }, (i, result) -> { });
    }

    /** The kernel called {@code name}, calling {@code service}; {@code callback} is the client's exported stub. */
    public static Kernel named(String name, BenchService service, Callback callback) {
        switch (name) {
            case "null":
                return new SerialKernel<Void>(name, SAME, i -> {
                    service.ping();
                    return null;
                }, (i, result) -> { });
            case "echo-int":
                return new SerialKernel<Integer>(name, SAME, service::echo, (i, result) ->
                        WrongResultException.expect(result == i, () -> name + ": echo(" + i + ") returned " + result));
            case "tree15": {
                Node tree = Node.fullTree(TREE_DEPTH, 1);
                return new SerialKernel<Node>(name, SAME, i -> service.echo(tree), (i, result) ->
                        WrongResultException.expect(tree.equals(result), () -> name + ": sent " + tree + ", got " + result));
            }
            case "transform": {
                Order order = Order.sample(ORDER_ITEMS);
                Order expected = order.transformed();
                return new SerialKernel<Order>(name, SAME, i -> service.transform(order), (i, result) ->
                        WrongResultException.expect(expected.equals(result), () -> name + ": expected " + expected
                                + ", got " + result));
            }
            case "callback": {
                int expected = DoublingCallback.answer(BenchService.CALLBACK_ARGUMENT) + 1;
                return new SerialKernel<Integer>(name, SAME, i -> service.callback(callback), (i, result) ->
                        WrongResultException.expect(result == expected, () -> name + ": returned " + result
                                + ", not " + expected));
            }
            case "echo-1mib": {
                double[] values = new double[MIB_OF_DOUBLES];
                Arrays.setAll(values, i -> i * 0.5);
                return new SerialKernel<double[]>(name, BULK, i -> service.echo(values), (i, result) ->
                        WrongResultException.expect(Arrays.equals(values, result), () -> name
                                + ": the array came back changed (length " + (result == null ? "null" : result.length) + ")"));
            }
            case "star8":
                return new StarKernel(name, STAR_THREADS, service);
            case "paced-null":
                return new SerialKernel<Void>(name, PACED, THINK_NANOS, i -> {
                    service.ping();
                    return null;
                }, (i, result) -> { });
            case "paced-tree15": {
                Node tree = Node.fullTree(TREE_DEPTH, 1);
                return new SerialKernel<Node>(name, PACED, THINK_NANOS, i -> service.echo(tree), (i, result) ->
                        WrongResultException.expect(tree.equals(result), () -> name + ": sent " + tree + ", got " + result));
            }
            case "idle2ms-null":
                return idleNull(name, 2, service);
            case "idle10ms-null":
                return idleNull(name, 10, service);
            case "jmx-scrape": {
                JmxScrape scrape = new JmxScrape(service);
                return new SerialKernel<Integer>(name, SCRAPES, i -> scrape.readAll(), (i, values) ->
                        WrongResultException.expect(values > 0, () -> name + ": a scrape read no attribute"));
            }
            default:
                throw new IllegalArgumentException("no kernel " + name + "; there are " + ALL);
        }
    }
}
