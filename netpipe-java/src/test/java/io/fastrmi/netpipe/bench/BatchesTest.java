package io.fastrmi.netpipe.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.netpipe.bench.kernels.BenchService;
import io.fastrmi.netpipe.bench.kernels.Callback;
import io.fastrmi.netpipe.bench.kernels.DoublingCallback;
import io.fastrmi.netpipe.bench.kernels.Kernel;
import io.fastrmi.netpipe.bench.kernels.Kernels;
import io.fastrmi.netpipe.bench.kernels.SerialKernel;
import io.fastrmi.netpipe.bench.kernels.WrongResultException;
import io.fastrmi.netpipe.bench.report.BenchOptions;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

class BatchesTest {

    private static int serverPort = -1;

    /** The one {@link BenchServer} of this JVM (its service object can be exported once). */
    private static synchronized int serverPort() throws Exception {
        if (serverPort < 0) {
            serverPort = BenchServer.start(0);
        }
        return serverPort;
    }

    @Test
    void batchesAddUpToTheKernelsCallsAndDifferByOneAtMost() {
        for (int total : new int[] {0, 1, 7, 50, 1_000, 20_000, 20_001}) {
            for (int of : new int[] {1, 3, 10, 64}) {
                int sum = 0;
                int min = Integer.MAX_VALUE;
                int max = 0;
                for (int i = 0; i < of; i++) {
                    int size = Batches.size(total, i, of);
                    sum += size;
                    min = Math.min(min, size);
                    max = Math.max(max, size);
                }
                assertEquals(total, sum, total + " calls in " + of + " batches");
                assertTrue(max - min <= 1, total + " in " + of + ": " + min + ".." + max);
            }
        }
    }

    @Test
    void eachColumnGoesFirstInTurn() {
        List<String> columns = List.of("stock", "ucx:shm", "tcp");
        List<String> firsts = new ArrayList<>();
        for (int batch = 0; batch < 6; batch++) {
            List<String> order = Batches.turn(columns, batch);
            assertEquals(3, order.size());
            assertTrue(order.containsAll(columns), order.toString());
            firsts.add(order.get(0));
        }
        assertEquals(List.of("stock", "ucx:shm", "tcp", "stock", "ucx:shm", "tcp"), firsts);
    }

    @Test
    void firstCallsTakeEachColumnsCallsOfAKernelInOneBatchOnceTheCompilersSettled() {
        List<String> events = new ArrayList<>();
        Batches.firstCalls(List.of("null", "callback"), List.of("stock", "ucx:shm", "tcp"), 1,
                () -> events.add("settle"), (column, kernel) -> events.add(column + " " + kernel));
        assertEquals(List.of("settle", "ucx:shm null", "settle", "tcp null", "settle", "stock null",
                "settle", "tcp callback", "settle", "stock callback", "settle", "ucx:shm callback"), events);
    }

    @Test
    void aRunOfFirstCallsHasOneBatchPerColumnAndRefusesMore() {
        assertEquals(1, BenchOptions.parse(new String[] {"--agent", "a.jar", "--warmup", "0"}).batches());
        assertEquals(10, BenchOptions.parse(new String[] {"--agent", "a.jar"}).batches());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--agent", "a.jar", "--warmup", "0", "--batches", "10"}));
        assertTrue(refused.getMessage().contains("--warmup 0"), refused.getMessage());
    }

    @Test
    void commandsReadBackAsWritten() {
        for (Batches.Command command : List.of(Batches.Command.batch(7, "echo-1mib", 2, 10), Batches.Command.report(8),
                Batches.Command.quit())) {
            assertEquals(command, Batches.Command.parse(command.line()));
        }
        assertTrue(Batches.donePattern(12).matcher(Batches.done(12)).matches());
        assertTrue(!Batches.donePattern(1).matcher(Batches.done(12)).matches(), "DONE 12 is not DONE 1");
    }

    @Test
    void aLineThatIsNoCommandIsRefusedByName() {
        for (String line : List.of("", "batch", "batch 1 null 10 10", "batch x null 0 1", "report", "quit now", "run null")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Batches.Command.parse(line));
            assertTrue(e.getMessage().contains("'" + line + "'") || e.getMessage().contains("batch "), e.getMessage());
        }
    }

    /**
     * A client serving a driver's batches over a real RMI connection (stock RMI in this JVM): every
     * kernel's batches add up to its calls, the answers come in order, and a wrong result fails
     * only its own kernel.
     */
    @Test
    void aClientRunsTheBatchesItIsGivenAndReportsEachKernelOverAllOfThem() throws Exception {
        int port = serverPort();
        BenchService service = (BenchService) LocateRegistry.getRegistry("127.0.0.1", port).lookup(BenchService.NAME);
        DoublingCallback callback = new DoublingCallback();
        Callback callbackStub = (Callback) UnicastRemoteObject.exportObject(callback, 0);
        try {
            Map<String, Kernel> kernels = new LinkedHashMap<>();
            for (String name : List.of("echo-int", "star8", "echo-1mib", "paced-null", "jmx-scrape")) {
                kernels.put(name, Kernels.named(name, service, callbackStub));
            }
            kernels.put("wrong", new SerialKernel<Integer>("wrong", n -> n, i -> service.echo(i), (i, result) ->
                    WrongResultException.expect(i < 5, () -> "wrong: call " + i)));
            StringBuilder commands = new StringBuilder();
            long seq = 0;
            for (int batch = 0; batch < 3; batch++) {
                for (String kernel : kernels.keySet()) {
                    commands.append(Batches.Command.batch(++seq, kernel, batch, 3).line()).append('\n');
                }
            }
            commands.append(Batches.Command.report(++seq).line()).append('\n').append("quit\n");
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            boolean failed = BenchClient.serve(kernels, service, 30, true, new BufferedReader(new StringReader(commands.toString())),
                    new PrintStream(bytes, true, StandardCharsets.UTF_8));

            assertTrue(failed, "the wrong kernel failed");
            List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
            List<String> dones = lines.stream().filter(l -> l.startsWith("DONE ")).toList();
            assertEquals(19, dones.size(), lines.toString());
            for (int i = 0; i < dones.size(); i++) {
                assertEquals(Batches.done(i + 1), dones.get(i));
            }
            Map<String, Integer> calls = new LinkedHashMap<>();
            for (String line : lines) {
                Matcher kernel = BenchClient.KERNEL.matcher(line);
                if (kernel.matches()) {
                    calls.put(kernel.group(1), Integer.parseInt(kernel.group(4)));
                    assertTrue(Double.parseDouble(kernel.group(2)) > 0, line);
                }
            }
            assertEquals(Map.of("echo-int", 30, "star8", 8 * 30, "echo-1mib", Kernels.bulkCalls(30),
                    "paced-null", kernels.get("paced-null").scaled(30), "jmx-scrape", kernels.get("jmx-scrape").scaled(30)),
                    calls, lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("FAILED wrong ") && l.contains("wrong: call ")), lines.toString());
        } finally {
            UnicastRemoteObject.unexportObject(callback, true);
        }
    }

    /**
     * A first-calls run (no warm-up) makes no call before the driver's first batch: the JIT settling's
     * polls are RMI calls, and a column that settles later would make more of them. With a warm-up,
     * each kernel's calls and the polls come first.
     */
    @Test
    void withoutAWarmUpTheClientCallsNothingBeforeItsFirstBatch() throws Exception {
        int port = serverPort();
        BenchService stub = (BenchService) LocateRegistry.getRegistry("127.0.0.1", port).lookup(BenchService.NAME);
        Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
        BenchService counted = recording(stub,
                name -> calls.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet());
        List<Kernel> kernels = List.of(Kernels.named("null", counted, null));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        BenchClient.prepare(kernels, counted, 0, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertEquals(Map.of(), calls, "no call before the first batch");
        assertEquals("WARMUP 0", bytes.toString(StandardCharsets.UTF_8).strip());

        BenchClient.prepare(kernels, counted, 5, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertEquals(5, calls.get("ping").get(), "the null kernel's warm-up calls");
        assertTrue(calls.get("compilationMillis").get() >= 1, "the settling asked the server: " + calls);
    }

    /**
     * The warm-up takes the kernels in turns, so that each kernel's last warm-up calls come after every
     * other kernel's (whose types make the JIT compile their shared path again), and it makes each
     * kernel's warm-up calls in all.
     */
    @Test
    void theWarmUpTakesTheKernelsInTurns() throws Exception {
        int port = serverPort();
        BenchService stub = (BenchService) LocateRegistry.getRegistry("127.0.0.1", port).lookup(BenchService.NAME);
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        BenchService counted = recording(stub, calls::add);
        List<Kernel> kernels = List.of(Kernels.named("null", counted, null), Kernels.named("echo-int", counted, null));

        BenchClient.prepare(kernels, counted, 10, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

        List<String> runs = new ArrayList<>();
        for (String call : calls) {
            if (!call.equals("compilationMillis") && (runs.isEmpty() || !runs.get(runs.size() - 1).equals(call))) {
                runs.add(call);
            }
        }
        List<String> turns = new ArrayList<>();
        for (int turn = 0; turn < BenchClient.WARMUP_TURNS; turn++) {
            turns.addAll(List.of("ping", "echo"));
        }
        assertEquals(turns, runs, calls.toString());
        assertEquals(10, calls.stream().filter("ping"::equals).count(), calls.toString());
        assertEquals(10, calls.stream().filter("echo"::equals).count(), calls.toString());
    }

    /** {@code service}, telling {@code calls} the name of each method called on it. */
    private static BenchService recording(BenchService service, Consumer<String> calls) {
        return (BenchService) Proxy.newProxyInstance(BenchService.class.getClassLoader(),
                new Class<?>[] {BenchService.class}, (proxy, method, args) -> {
                    calls.accept(method.getName());
                    try {
                        return method.invoke(service, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void aCommandTheClientDoesNotKnowStopsIt() {
        assertThrows(IllegalArgumentException.class, () -> BenchClient.serve(Map.of(), null, 10, true,
                new BufferedReader(new StringReader("batch 1 null 0 1\n")), new PrintStream(new ByteArrayOutputStream())));
    }
}
