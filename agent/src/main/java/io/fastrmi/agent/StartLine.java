package io.fastrmi.agent;

/**
 * The agent's one line at start (version, JDK, config), logged when FastRMI first has work: when RMI
 * loads its first instrumented class, or at start under {@code scope = jvm}. Setting up the
 * application's logging costs tens of milliseconds (java.util.logging, time zones, locale data),
 * which a JVM that never uses RMI should not pay: it was a third of the start-up the agent added.
 * Where the application leaves the JDK's logging as it comes, the line is printed on standard error
 * here, where that logging would print it, without the time stamp whose formatting cost each JVM
 * 50-80 ms of CPU ({@link DefaultConsoleLogging}).
 */
final class StartLine {

    private static String line;
    private static boolean logged;

    private StartLine() {
    }

    static synchronized void set(String text) {
        line = text;
    }

    /** Logs the line once, from a thread of its own (not a daemon: the line is never lost). */
    static synchronized void log() {
        if (logged || line == null) {
            return;
        }
        logged = true;
        new Thread(new Logging(line), "fastrmi-start-log").start();
    }

    /** A class, not a lambda: a lambda costs the JVM a class spun at its first use (see {@code StartupIT}). */
    private static final class Logging implements Runnable {
        private final String text;

        Logging(String text) {
            this.text = text;
        }

        @Override
        public void run() {
            System.Logger logger = System.getLogger(FastRmiAgent.LOGGER);
            if (!logger.isLoggable(System.Logger.Level.INFO)) {
                return;
            }
            if (DefaultConsoleLogging.printsInfoOnStandardError(FastRmiAgent.LOGGER)) {
                System.err.println("INFO: " + text);
            } else {
                logger.log(System.Logger.Level.INFO, text);
            }
        }
    }
}
