package io.fastrmi.fastsockets.handshake;

import java.io.IOException;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;

/**
 * Whether FastRMI makes its JFR events ({@code fastrmi.Handshake}, {@code fastrmi.RmiCall}): only
 * once JFR has started in this JVM, with a recording at start or one begun later ({@code jcmd
 * JFR.start}). Initializing an event class starts JFR's own machinery, about 200 ms of CPU in a JVM
 * that records nothing; before JFR starts no event could be recorded anyway. A runtime made without
 * the {@code jdk.jfr} module (jlink) records nothing and names no class of JFR's: FastRMI runs there
 * as anywhere else.
 */
public final class JfrEvents {

    /** Whether this runtime has JFR at all. */
    private static final boolean PRESENT = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private JfrEvents() {
    }

    public static boolean started() {
        return PRESENT && FlightRecorder.isInitialized();
    }

    /**
     * Has JFR register the named event classes (FastRMI's, on its own class path) as JFR starts, so
     * that they are in the metadata JFR writes first. An event class registered while a recording
     * runs makes JFR write all its metadata again at its next flush, work the JIT then compiles: 30
     * to 130 ms of CPU in each recording JVM, inside its first connections. Called before JFR starts
     * (premain runs before a recording asked for at start-up begins); adding the listener loads a
     * few of JFR's classes and starts nothing, so a JVM that never records pays no more.
     */
    public static void registerAtStart(String... eventClasses) throws IOException {
        if (PRESENT) {
            Privileged.call(new Registration(eventClasses));
        }
    }

    /** A class, not a lambda: it runs in premain (StartupIT). */
    private static final class Registration implements Privileged.Work<Void>, FlightRecorderListener {
        private final String[] eventClasses;

        Registration(String[] eventClasses) {
            this.eventClasses = eventClasses.clone();
        }

        /** Added with FastRMI's permissions, which JFR keeps for the call back. */
        @Override
        public Void run() {
            FlightRecorder.addListener(this);
            return null;
        }

        @Override
        public void recorderInitialized(FlightRecorder recorder) {
            for (String name : eventClasses) {
                try {
                    Privileged.initialize(Class.forName(name, false, JfrEvents.class.getClassLoader()));
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException("FastRMI's event class " + name + " is missing", e);
                }
            }
        }
    }
}
