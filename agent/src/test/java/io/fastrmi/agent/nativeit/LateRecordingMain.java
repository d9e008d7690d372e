package io.fastrmi.agent.nativeit;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;
import java.util.List;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JVM started without a recording that makes an RMI call, then begins one (as {@code jcmd
 * JFR.start} would) and calls an object exported on another port, so over a new connection: prints
 * {@code JFR_BEFORE started} (whether JFR had started before the recording), {@code HANDSHAKES n}
 * (fast {@code fastrmi.Handshake} events recorded) and {@code CALLS n} ({@code fastrmi.RmiCall}
 * events of {@code echo}), {@code LEAN_CALLS n} (those in the lean format), then {@code DONE}. Usage: {@code LateRecordingMain RECORDING_FILE}.
 */
public final class LateRecordingMain {

    /** The remote interface called. */
    public interface Echo extends Remote {
        int echo(int x) throws RemoteException;

        /** Nothing; called after {@code echo} on the same connection, so its server thread has committed echo's event. */
        void settle() throws RemoteException;
    }

    static final class EchoImpl implements Echo {
        @Override
        public int echo(int x) {
            return x;
        }

        @Override
        public void settle() {
        }
    }

    /** Held here: an exported object only weakly reachable from RMI could be collected. */
    private static final EchoImpl BEFORE = new EchoImpl();
    private static final EchoImpl AFTER = new EchoImpl();

    private LateRecordingMain() {
    }

    public static void main(String[] args) throws Exception {
        Echo before = (Echo) UnicastRemoteObject.exportObject(BEFORE, 0);
        if (before.echo(1) != 1) {
            throw new IllegalStateException("wrong echo");
        }
        System.out.println("JFR_BEFORE " + FlightRecorder.isInitialized());
        Path file = Path.of(args[0]);
        try (Recording recording = new Recording()) {
            recording.enable("fastrmi.Handshake");
            recording.enable("fastrmi.RmiCall");
            recording.start();
            Echo after = (Echo) UnicastRemoteObject.exportObject(AFTER, freePort());
            if (after.echo(2) != 2) {
                throw new IllegalStateException("wrong echo");
            }
            // The server commits echo's event after its reply has gone: a recording stopped at
            // once may miss it. The next call on the connection is read by that thread after it.
            after.settle();
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        System.out.println("HANDSHAKES " + events.stream().filter(e -> e.getEventType().getName().equals("fastrmi.Handshake")
                && "fast".equals(e.getString("result"))).count());
        System.out.println("CALLS " + events.stream().filter(e -> e.getEventType().getName().equals("fastrmi.RmiCall")
                && "echo".equals(e.getString("method"))).count());
        System.out.println("LEAN_CALLS " + events.stream().filter(e -> e.getEventType().getName().equals("fastrmi.RmiCall")
                && "echo".equals(e.getString("method")) && e.getBoolean("lean")).count());
        System.out.println("DONE");
        System.exit(0);
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
