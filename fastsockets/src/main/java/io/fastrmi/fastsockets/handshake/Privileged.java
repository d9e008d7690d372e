package io.fastrmi.fastsockets.handshake;

import java.io.IOException;
import java.security.AccessController;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;

/**
 * FastRMI's own work on RMI's threads, run with FastRMI's permissions rather than the thread's.
 * Under a Security Manager (JDK 17–23) RMI handles each incoming connection with no permissions
 * at all, so a negotiation there (reading a system property, loading the library, registering a
 * JFR event class) was refused and took the connection with it; RMI's own transport code runs its
 * privileged steps the same way. Where no Security Manager runs, this is a plain call.
 */
public final class Privileged {

    /** Work that may throw an IOException. */
    public interface Action {
        void run() throws IOException;
    }

    /** Work with a result that may throw an IOException. */
    public interface Work<T> extends PrivilegedExceptionAction<T> {
        @Override
        T run() throws IOException;
    }

    private Privileged() {
    }

    public static void run(Action action) throws IOException {
        call(new ActionWork(action));
    }

    /** A class, not a lambda: each lambda costs the JVM a class spun at its first use (StartupIT). */
    private static final class ActionWork implements Work<Void> {
        private final Action action;

        ActionWork(Action action) {
            this.action = action;
        }

        @Override
        public Void run() throws IOException {
            action.run();
            return null;
        }
    }

    @SuppressWarnings("removal") // AccessController: what a Security Manager of JDK 17-23 honours
    public static <T> T call(Work<T> work) throws IOException {
        try {
            return AccessController.doPrivileged(work);
        } catch (PrivilegedActionException e) {
            throw (IOException) e.getException(); // Work declares only IOException
        }
    }

    /**
     * Initializes a JFR event class, which registers itself with JFR as it initializes (a check a
     * Security Manager makes).
     */
    public static void initialize(Class<?> eventClass) {
        try {
            call(new Initializing(eventClass));
        } catch (IOException e) {
            throw new IllegalStateException(e); // initializing a class throws none
        }
    }

    /** A class, not a lambda: it runs on a recording JVM's first calls (StartupIT). */
    private static final class Initializing implements Work<Void> {
        private final Class<?> type;

        Initializing(Class<?> type) {
            this.type = type;
        }

        @Override
        public Void run() {
            try {
                Class.forName(type.getName(), true, type.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e); // the class is there: it was passed in
            }
            return null;
        }
    }
}
