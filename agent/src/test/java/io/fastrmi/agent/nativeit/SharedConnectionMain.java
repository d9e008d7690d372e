package io.fastrmi.agent.nativeit;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many threads of one client calling one server, so that RMI hands each connection from call to
 * call. Every other call returns a new remote object: the stub in its reply has the client's DGC
 * register it (a dirty call of its own) and acknowledge the reply, after RMI freed the call's
 * connection for the next call (it frees it as soon as the value is read). The other calls add
 * two numbers, checked; every tenth round also makes a call that throws from the server (RMI's
 * client then frees the connection and never releases the call's input). Usage: {@code server} (prints {@code READY port=P}, runs until its standard
 * input ends) or {@code client PORT} ({@value #THREADS} threads, {@value #ROUNDS} rounds each;
 * prints {@code WRONG} lines for any answer that differs, {@code FAILED} for a call that threw,
 * then {@code ROUNDS n} and {@code DONE}).
 */
public final class SharedConnectionMain {

    public static final int THREADS = 4;
    public static final int ROUNDS = 300;

    public interface Factory extends Remote {
        /** A new remote object, exported for this call. */
        Made make(int id) throws RemoteException;

        long add(long a, long b) throws RemoteException;

        /** Throws {@link Refused} naming {@code id}. */
        void refuse(int id) throws RemoteException, Refused;
    }

    /** What {@link Factory#refuse} throws. */
    public static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    public interface Made extends Remote {
        int id() throws RemoteException;
    }

    private SharedConnectionMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("server")) {
            serve();
        } else {
            call(Integer.parseInt(args[1]));
        }
    }

    private static void serve() throws Exception {
        Factory impl = new Factory() {
            @Override
            public Made make(int id) throws RemoteException {
                Made made = () -> id;
                return (Made) UnicastRemoteObject.exportObject(made, 0);
            }

            @Override
            public long add(long a, long b) {
                return a + b;
            }

            @Override
            public void refuse(int id) throws Refused {
                throw new Refused("refused " + id);
            }
        };
        RegistryServer.serve("factory", impl);
    }

    private static void call(int port) throws Exception {
        Factory factory = (Factory) LocateRegistry.getRegistry("127.0.0.1", port).lookup("factory");
        AtomicLong rounds = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long base = t * 1_000_000L;
            Thread thread = new Thread(() -> {
                try {
                    for (int i = 0; i < ROUNDS; i++) {
                        Made made = factory.make(i);
                        long sum = factory.add(base + i, i);
                        if (sum != base + 2L * i) {
                            System.out.println("WRONG add(" + (base + i) + ", " + i + ") = " + sum);
                        }
                        if (made.id() != i) {
                            System.out.println("WRONG made " + i + " says " + made.id());
                        }
                        if (i % 10 == 0) {
                            refuse(factory, i);
                        }
                        rounds.incrementAndGet();
                    }
                } catch (RemoteException | RuntimeException e) {
                    System.out.println("FAILED " + e);
                }
            }, "caller-" + t);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        System.out.println("ROUNDS " + rounds.get());
        System.out.println("DONE");
        System.exit(0);
    }

    private static void refuse(Factory factory, int i) throws RemoteException {
        try {
            factory.refuse(i);
            System.out.println("WRONG refuse " + i + " returned");
        } catch (Refused e) {
            if (!e.getMessage().equals("refused " + i)) {
                System.out.println("WRONG refuse " + i + " threw " + e.getMessage());
            }
        }
    }
}
