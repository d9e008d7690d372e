package io.fastrmi.netpipe.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each application's workers, run as threads of this JVM over real RMI (a registry, exported
 * objects, stubs), give the sequential result at every worker count; and the check finds a result
 * that differs.
 */
class AppsTest {

    /** One for the class: a JVM has room for one registry (its object id is fixed). */
    private static Registry registry;

    @BeforeAll
    static void createRegistry() throws Exception {
        registry = LocateRegistry.createRegistry(0);
    }

    @AfterAll
    static void removeRegistry() throws Exception {
        UnicastRemoteObject.unexportObject(registry, true);
    }

    @ParameterizedTest(name = "{0} on {1} workers")
    @CsvSource({"sor, 1", "sor, 3", "sor, 8", "asp, 1", "asp, 3", "asp, 8", "tsp, 1", "tsp, 3", "tsp, 8", "nbody, 1",
        "nbody, 3", "nbody, 8"})
    void theParallelResultIsTheSequentialOne(String name, int workers) throws Exception {
        ParallelApp app = Apps.of(name, "quick");
        List<Serializable> parts = runInThisJvm(app, name, workers);
        assertEquals(workers, parts.size());
        assertNull(app.check(parts));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"sor", "asp", "tsp", "nbody"})
    void theCheckFindsAResultThatDiffers(String name) throws Exception {
        ParallelApp app = Apps.of(name, "quick");
        List<Serializable> parts = runInThisJvm(app, name, 2);
        Serializable wrong = switch (name) {
            case "sor" -> {
                Sor.Part part = (Sor.Part) parts.get(1);
                part.rows()[0][1] += 1e-12;
                yield part;
            }
            case "asp" -> {
                Asp.Part part = (Asp.Part) parts.get(1);
                part.rows()[0][0] = 1;
                yield part;
            }
            case "nbody" -> {
                NBody.Part part = (NBody.Part) parts.get(1);
                NBody.Body b = part.rows()[0];
                part.rows()[0] = new NBody.Body(Math.nextUp(b.x()), b.y(), b.z(), b.vx(), b.vy(), b.vz(), b.mass());
                yield part;
            }
            default -> ((Tsp) app).sequential() - 1;
        };
        parts.set(1, wrong);
        String why = app.check(parts);
        assertNotNull(why);
        assertTrue(why.contains("differs") || why.contains("shortest tour"), why);
        if (!name.equals("tsp")) { // TSP's parts are each worker's best: one alone may hold the shortest
            parts.remove(1);
            assertNotNull(app.check(parts), "a missing part");
        }
    }

    /**
     * The coordinator (with {@code app}'s services) and {@code workers} workers as threads, over
     * RMI; the workers' parts by rank.
     */
    private static List<Serializable> runInThisJvm(ParallelApp app, String name, int workers) throws Exception {
        AppCoordinator.Run run = new AppCoordinator.Run(workers);
        app.bindServices(registry, workers);
        Coordinator coordinator = (Coordinator) UnicastRemoteObject.exportObject(run, 0);
        List<Remote> exported = new ArrayList<>(List.of(run));
        ExecutorService threads = Executors.newFixedThreadPool(workers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int w = 0; w < workers; w++) {
                ParallelApp own = Apps.of(name, "quick");
                Remote self = own.newWorkerObject();
                exported.add(self);
                Remote stub = UnicastRemoteObject.exportObject(self, 0);
                running.add(threads.submit(() -> {
                    Coordinator.Peers peers = coordinator.join(stub);
                    CommClock clock = new CommClock();
                    coordinator.done(peers.rank(), own.work(peers, self, registry, clock), clock.times());
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
            run.awaitDone();
            return new ArrayList<>(run.parts());
        } finally {
            threads.shutdownNow();
            for (Remote r : exported) {
                UnicastRemoteObject.unexportObject(r, true);
            }
        }
    }
}
