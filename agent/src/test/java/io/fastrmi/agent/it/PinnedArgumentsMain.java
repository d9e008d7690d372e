package io.fastrmi.agent.it;

import java.io.NotSerializableException;
import java.lang.ref.WeakReference;
import java.rmi.MarshalException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;

/**
 * OpenJDK's PinLastArguments (bug 6332349), as a main the ITs run under the agent: a call whose
 * arguments fail to marshal must not keep them reachable once the object is unexported. Prints
 * {@code FAILED-AS-EXPECTED}, then {@code COLLECTED true|false} after up to 200 collections.
 */
public final class PinnedArgumentsMain {

    public interface Ping extends Remote {
        void ping(Object first, Object second) throws RemoteException;
    }

    static final class PingImpl implements Ping {
        @Override
        public void ping(Object first, Object second) {
        }
    }

    private PinnedArgumentsMain() {
    }

    public static void main(String[] args) throws Exception {
        WeakReference<Ping> ref = callThenUnexport();
        for (int i = 0; i < 200 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        System.out.println("COLLECTED " + (ref.get() == null));
        System.exit(0);
    }

    private static WeakReference<Ping> callThenUnexport() throws Exception {
        Ping impl = new PingImpl();
        Ping stub = (Ping) UnicastRemoteObject.exportObject(impl, 0);
        try {
            stub.ping(impl, null);
            try {
                stub.ping(impl, new Object());
            } catch (MarshalException e) {
                if (e.getCause() instanceof NotSerializableException) {
                    System.out.println("FAILED-AS-EXPECTED");
                } else {
                    throw e;
                }
            }
        } finally {
            UnicastRemoteObject.unexportObject(impl, true);
        }
        return new WeakReference<>(impl);
    }
}
