package io.fastrmi.fastsockets.handshake;

import jdk.jfr.FlightRecorder;

/**
 * Whether FastRMI makes its JFR events ({@code fastrmi.Handshake}, {@code fastrmi.RmiCall}): only
 * once JFR has started in this JVM, with a recording at start or one begun later ({@code jcmd
 * JFR.start}). Initializing an event class starts JFR's own machinery, about 200 ms of CPU in a JVM
 * that records nothing; before JFR starts no event could be recorded anyway.
 */
public final class JfrEvents {

    private JfrEvents() {
    }

    public static boolean started() {
        return FlightRecorder.isInitialized();
    }
}
