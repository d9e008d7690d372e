package io.fastrmi.sample;

import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Calls every method of the sample service once and prints a transcript, one {@code CALL} line per
 * call; the transcript is the same whatever transport or wire format carried the calls. With
 * {@code --time N} it then times each method over N calls (after 3N warm-up calls of every method) and prints
 * {@code TIME method microseconds} lines (the 1 MiB echo over N/10 calls).
 *
 * <p>Usage: {@code SampleClient host port [--time N]}
 */
public final class SampleClient {

    public static final String DONE = "DONE";

    private SampleClient() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 && !(args.length == 4 && args[2].equals("--time"))) {
            System.err.println("usage: SampleClient host port [--time N]");
            System.exit(2);
        }
        SampleService service = (SampleService) LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]))
                .lookup(SampleServer.NAME);
        CallbackImpl callback = new CallbackImpl();
        Callback callbackStub = (Callback) UnicastRemoteObject.exportObject(callback, 0);
        try {
            for (String line : transcript(service, callbackStub)) {
                System.out.println(line);
            }
            if (args.length == 4) {
                int n = Integer.parseInt(args[3]);
                time(service, callbackStub, n).forEach((method, micros) ->
                        System.out.printf(Locale.ROOT, "TIME %s %.2f%n", method, micros));
            }
        } finally {
            UnicastRemoteObject.unexportObject(callback, true);
        }
        System.out.println(DONE);
        System.out.flush();
        System.exit(0);
    }

    /** Calls each method once; the lines name the call and what came back. */
    public static List<String> transcript(SampleService service, Callback callback) throws RemoteException {
        Payload leaf = new Payload("leaf", new int[] {7}, List.of(), null);
        Payload root = new Payload("root", new int[] {1, 2, 3}, List.of("a", "b"), leaf);
        double[] doubles = {0.5, -1.25, Math.PI, Double.MAX_VALUE, Double.NaN};
        String failure;
        try {
            service.fail("on purpose");
            failure = "no exception";
        } catch (SampleException e) {
            failure = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        service.ping();
        return List.of(
                "CALL ping = void",
                "CALL add(2, 40) = " + service.add(2, 40),
                "CALL negate(" + Long.MAX_VALUE + ") = " + service.negate(Long.MAX_VALUE),
                "CALL scale(1.5, -4.0) = " + service.scale(1.5, -4.0),
                "CALL not(false) = " + service.not(false),
                "CALL greet(\"r\u00e9mi\") = " + service.greet("r\u00e9mi"),
                "CALL transform(" + root + ") = " + service.transform(root),
                "CALL echo(" + Arrays.toString(doubles) + ") = " + Arrays.toString(service.echo(doubles)),
                "CALL reverse([1, 2, 3, 4]) = " + Arrays.toString(service.reverse(new int[] {1, 2, 3, 4})),
                "CALL visit(callback, 4) = " + service.visit(callback, 4),
                "CALL fail(\"on purpose\") = " + failure);
    }

    /**
     * Mean round-trip time in microseconds of each method over {@code n} calls (the 1 MiB echo over
     * n/10), measured after every method has had {@code warmUpRounds} times as many warm-up calls:
     * on a 2-core machine the JIT compilers would otherwise share the cores with the timed calls.
     */
    public static Map<String, Double> time(SampleService service, Callback callback, int n) throws RemoteException {
        Map<String, RemoteCall> calls = new LinkedHashMap<>();
        double[] mib = new double[131072];
        Payload payload = new Payload("p", new int[32], List.of("x"), null);
        calls.put("ping", service::ping);
        calls.put("add", () -> service.add(1, 2));
        calls.put("transform", () -> service.transform(payload));
        calls.put("echo(double[131072])", () -> service.echo(mib));
        calls.put("visit(callback,1)", () -> service.visit(callback, 1));
        int warmUpRounds = 3;
        for (int round = 0; round < warmUpRounds; round++) {
            for (Map.Entry<String, RemoteCall> call : calls.entrySet()) {
                repeat(call.getValue(), count(call.getKey(), n));
            }
        }
        Map<String, Double> micros = new LinkedHashMap<>();
        for (Map.Entry<String, RemoteCall> call : calls.entrySet()) {
            int count = count(call.getKey(), n);
            long start = System.nanoTime();
            repeat(call.getValue(), count);
            micros.put(call.getKey(), (System.nanoTime() - start) / 1e3 / count);
        }
        return micros;
    }

    private static int count(String method, int n) {
        return method.startsWith("echo") ? Math.max(1, n / 10) : n;
    }

    private static void repeat(RemoteCall call, int count) throws RemoteException {
        for (int i = 0; i < count; i++) {
            call.run();
        }
    }

    @FunctionalInterface
    private interface RemoteCall {
        void run() throws RemoteException;
    }

    /** Answers each callback with ten times its argument. */
    public static final class CallbackImpl implements Callback {
        @Override
        public int call(int value) {
            return value * 10;
        }
    }
}
