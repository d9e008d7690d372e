package io.fastrmi.fastsockets.transport;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What FastRMI says in the application's log: warnings, and notes said once per key. At the bottom:
 * it depends on nothing else of FastRMI.
 */
public final class FastRmiLog {

    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();
    private static final int LOGGED_MAX = 1000;
    private static final String LOGGED_FULL = "\0full";

    private FastRmiLog() {
    }

    public static void warn(String message) {
        log().log(System.Logger.Level.WARNING, message);
    }

    /**
     * Says {@code message} the first time {@code key} comes. Keys may carry what peers sent, so
     * their number is bounded: past {@link #LOGGED_MAX}, one last line says that more are not said.
     */
    public static void once(String key, String message) {
        if (LOGGED.size() >= LOGGED_MAX) {
            if (LOGGED.add(LOGGED_FULL)) {
                log().log(System.Logger.Level.INFO, "FastRMI: " + LOGGED_MAX + " different notes said; no more from now on");
            }
            return;
        }
        if (LOGGED.add(key)) {
            log().log(System.Logger.Level.INFO, message);
        }
    }

    /** Looked up when needed: the application's logging is not set up on the agent's start-up path. */
    private static System.Logger log() {
        return System.getLogger("io.fastrmi.fastsockets");
    }
}
