package io.fastrmi.agent.nativeit;

import io.fastrmi.optrmi.lean.Corpus;
import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.Arrays;
import java.util.List;

/**
 * An RMI echo of the lean format's corpus. {@code server} exports {@link Echo} (prints
 * {@code READY port=P}, runs until its standard input ends). {@code client PORT} sends every shape
 * of the corpus and checks that what comes back is what the JDK's own serialization gives, prints
 * {@code SHAPE name: same|DIFFERENT|threw ...}, then {@code CALLBACK n} (a remote object passed as an
 * argument and called back), {@code VERSIONED outcome} (a class whose serialVersionUID is
 * {@code -Dlean.it.uid}, 1 by default), {@code POINT outcome} (a class a serial filter may reject),
 * {@code REGISTRY outcome} (a bind the registry's built-in filter rejects),
 * {@code AFTER outcome} (a call after those), {@code FIELDS direct} (or why the lean streams reach
 * fields through the JDK's field reflector), {@code STRAIGHT n} (bytes its native connections read
 * straight into arrays), {@code BINDING how} (the binding that calls its native library, and why),
 * and {@code DONE}. With {@code -Dlean.it.limits=true}
 * the client makes only binds that cross the registry's limits (run the server with a registry filter
 * that allows this class's nested classes): {@code DEPTH n outcome} for a chain of n links, and
 * {@code REFS n outcome} for an array of n numbers, each carried by a proxy's handler, then {@code DONE}.
 */
public final class LeanEchoMain {

    public interface Echo extends Remote {
        Object echo(Object o) throws RemoteException;

        int callBack(Counter counter, int times) throws RemoteException;
    }

    public interface Counter extends Remote {
        int next() throws RemoteException;
    }

    /** Its serialVersionUID is read when the class initializes: a JVM may be given another. */
    public static final class Versioned implements Serializable {
        private static final long serialVersionUID = Long.getLong("lean.it.uid", 1L);
        int value = 7;
    }

    /** A serializable handler that is no remote stub: the registry's built-in filter refuses it in a bind. */
    public static final class CarriedHandler implements java.lang.reflect.InvocationHandler, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method method, Object[] args) {
            return null;
        }
    }

    /** Carries a payload into a bind: a proxy with this handler is a Remote the registry accepts by class. */
    public static final class Carrier implements java.lang.reflect.InvocationHandler, Serializable {
        private static final long serialVersionUID = 1L;
        final Object payload;

        Carrier(Object payload) {
            this.payload = payload;
        }

        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method method, Object[] args) {
            return null;
        }
    }

    /** One link of a chain: each is one level deeper in the stream. */
    public static final class Link implements Serializable {
        private static final long serialVersionUID = 1L;
        final Link next;

        Link(Link next) {
            this.next = next;
        }
    }

    private LeanEchoMain() {
    }

    public static void main(String[] args) throws Exception {
        if (Boolean.getBoolean("lean.it.serializeFirst")) {
            // Serialization before RMI: the agent leaves java.io as it is until RMI's first class.
            Corpus.jdkRoundTrip(new Corpus.Point(3, 4));
        }
        if (args[0].equals("server")) {
            serve();
        } else {
            talk(Integer.parseInt(args[1]));
        }
    }

    private static void serve() throws Exception {
        Echo impl = new Echo() {
            @Override
            public Object echo(Object o) {
                return o;
            }

            @Override
            public int callBack(Counter counter, int times) throws RemoteException {
                int last = 0;
                for (int i = 0; i < times; i++) {
                    last = counter.next();
                }
                return last;
            }
        };
        RegistryServer.serve("echo", impl);
    }

    private static void talk(int port) throws Exception {
        if (Boolean.getBoolean("lean.it.limits")) {
            crossLimits(LocateRegistry.getRegistry("127.0.0.1", port));
            System.out.println("DONE");
            System.exit(0);
        }
        Echo echo = (Echo) LocateRegistry.getRegistry("127.0.0.1", port).lookup("echo");
        List<Corpus.Shape> shapes = Corpus.shapes();
        for (Corpus.Shape shape : shapes) {
            Object sent = shape.make().get();
            String result;
            try {
                Object back = echo.echo(sent);
                result = Arrays.equals(Corpus.jdkBytes(Corpus.jdkRoundTrip(sent)), Corpus.jdkBytes(back)) ? "same" : "DIFFERENT";
            } catch (RemoteException e) {
                result = outcome(() -> {
                    throw e;
                });
            }
            System.out.println("SHAPE " + shape.name() + ": " + result);
        }
        Counter counter = new Counter() {
            private int n;

            @Override
            public int next() {
                return ++n;
            }
        };
        Counter counterStub = (Counter) UnicastRemoteObject.exportObject(counter, 0);
        System.out.println("CALLBACK " + echo.callBack(counterStub, 5));
        UnicastRemoteObject.unexportObject(counter, true);
        System.out.println("VERSIONED " + outcome(() -> echo.echo(new Versioned())));
        System.out.println("POINT " + outcome(() -> echo.echo(new Corpus.Point(1, 2))));
        Registry registry = LocateRegistry.getRegistry("127.0.0.1", port);
        Remote smuggler = (Remote) java.lang.reflect.Proxy.newProxyInstance(LeanEchoMain.class.getClassLoader(),
                new Class<?>[] {Remote.class}, new CarriedHandler());
        System.out.println("REGISTRY " + outcome(() -> {
            registry.rebind("smuggled", smuggler);
            return "bound";
        }));
        System.out.println("AFTER " + outcome(() -> echo.echo("after")));
        System.out.println("FIELDS " + fieldAccess());
        System.out.println("STRAIGHT " + bytesReadStraight());
        System.out.println("BINDING " + binding());
        System.out.println("DONE");
        System.exit(0);
    }

    /** Binds that cross the registry filter's depth and reference limits, one step at a time. */
    private static void crossLimits(Registry registry) {
        for (int n = 12; n <= 24; n++) {
            Link chain = null;
            for (int i = 0; i < n; i++) {
                chain = new Link(chain);
            }
            Remote carried = carrier(chain);
            System.out.println("DEPTH " + n + " " + outcome(() -> {
                registry.rebind("deep", carried);
                return "bound";
            }));
        }
        for (int n = 30; n <= 60; n += 3) {
            Object[] numbers = new Number[n];
            for (int i = 0; i < n; i++) {
                numbers[i] = new java.math.BigInteger(Integer.toString(1000 + i)); // distinct objects, each a reference
            }
            Remote carried = carrier(numbers);
            System.out.println("REFS " + n + " " + outcome(() -> {
                registry.rebind("many", carried);
                return "bound";
            }));
        }
    }

    private static Remote carrier(Object payload) {
        return (Remote) java.lang.reflect.Proxy.newProxyInstance(LeanEchoMain.class.getClassLoader(),
                new Class<?>[] {Remote.class}, new Carrier(payload));
    }

    private interface Call {
        Object call() throws Exception;
    }

    /** "returned X", or the exception and its causes' classes and messages. */
    private static String outcome(Call call) {
        try {
            Object result = call.call();
            return "returned " + (result instanceof Versioned v ? "Versioned(" + v.value + ")" : result);
        } catch (Exception e) {
            StringBuilder text = new StringBuilder("threw");
            for (Throwable t = e; t != null; t = t.getCause()) {
                text.append(" / ").append(t.getClass().getName()).append(": ").append(t.getMessage() == null ? "" : t.getMessage().replace('\n', ' '));
            }
            return text.toString();
        }
    }

    /** How many bytes this JVM's native connections read straight into arrays (0 with none). */
    private static long bytesReadStraight() {
        try {
            return (long) Class.forName("io.fastrmi.fastsockets.transport.NativeConnection").getMethod("arrayBytesRead").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            return -1;
        }
    }

    /** Which binding calls this JVM's native library, and why (doctor's {@code binding} row). */
    private static String binding() {
        try {
            return (String) Class.forName("io.fastrmi.fastsockets.nativelib.NativeLibraries").getMethod("binding").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            return "unknown: " + e;
        }
    }

    /** How this JVM's lean streams reach fields: "direct", or why not (the lean runtime is the agent's). */
    private static String fieldAccess() {
        try {
            Object why = Class.forName("io.fastrmi.optrmi.lean.LeanRuntime").getMethod("directFieldsUnavailableReason").invoke(null);
            return why == null ? "direct" : why.toString();
        } catch (ReflectiveOperationException | LinkageError e) {
            return "no lean runtime: " + e;
        }
    }
}
