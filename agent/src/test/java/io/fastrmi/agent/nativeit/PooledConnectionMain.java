package io.fastrmi.agent.nativeit;

import io.fastrmi.sample.SampleServer;
import io.fastrmi.sample.SampleService;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * Calls the sample server's {@code ping()} {@code args[2]} times with {@code args[3]} ms between
 * calls, then prints {@code ROUNDTRIPS} and the ping round trip RMI keeps for each pooled connection
 * to the server ({@code TCPConnection.roundtrip}: 5, its first value, until RMI pinged the server
 * before reusing the connection). Then, at each line read, calls once more and prints {@code ANSWER
 * <n> OK} or {@code ANSWER <n> FAILED <exception>}, n counting from 1. Needs {@code --add-opens} of {@code java.rmi}'s transport packages.
 */
public final class PooledConnectionMain {

    private PooledConnectionMain() {
    }

    public static void main(String[] args) throws Exception {
        SampleService service = (SampleService) LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]))
                .lookup(SampleServer.NAME);
        int calls = Integer.parseInt(args[2]);
        long pauseMillis = Long.parseLong(args[3]);
        for (int i = 0; i < calls; i++) {
            service.ping();
            Thread.sleep(pauseMillis);
        }
        System.out.println("ROUNDTRIPS " + roundTrips(service));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (int n = 1; in.readLine() != null; n++) {
            try {
                service.ping();
                System.out.println("ANSWER " + n + " OK");
            } catch (Exception e) {
                System.out.println("ANSWER " + n + " FAILED " + e.getClass().getName() + ": " + e.getMessage());
            }
        }
        System.exit(0);
    }

    private static List<Object> roundTrips(Object stub) throws ReflectiveOperationException {
        Object ref = field(Proxy.getInvocationHandler(stub), "java.rmi.server.RemoteObject", "ref");
        Object liveRef = field(ref, "sun.rmi.server.UnicastRef", "ref");
        Object channel = field(liveRef, "sun.rmi.transport.LiveRef", "ch");
        List<Object> roundTrips = new ArrayList<>();
        for (Object connection : (List<?>) field(channel, "sun.rmi.transport.tcp.TCPChannel", "freeList")) {
            roundTrips.add(field(connection, "sun.rmi.transport.tcp.TCPConnection", "roundtrip"));
        }
        return roundTrips;
    }

    private static Object field(Object owner, String className, String name) throws ReflectiveOperationException {
        Field field = Class.forName(className).getDeclaredField(name);
        field.setAccessible(true);
        return field.get(owner);
    }
}
