package io.fastrmi.agent;

import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Whether a logger's INFO records would go through the JDK's logging exactly as it comes, untouched
 * by the application: {@code java.util.logging} behind {@code System.Logger}, no logging config,
 * and on the way from the logger to the root only the root's one {@link ConsoleHandler} with its
 * {@link SimpleFormatter} of the default format. Such a record ends on standard error, after the
 * formatter has spent 50-80 ms of the JVM's CPU on its time stamp (the time zone rules and the
 * locale's names of months, which RMI itself never loads). Anything else the application set
 * (a config file, a format, a handler, a filter, a backend of its own) keeps the record in its hands.
 */
final class DefaultConsoleLogging {

    /** {@code System.LoggerFinder} of the JDK when {@code java.logging} is there: the backend is JUL. */
    private static final String JDK_LOGGER_FINDER = "sun.util.logging.internal.LoggingProviderImpl";
    private static final String[] CONFIG_PROPERTIES = {"java.util.logging.config.file", "java.util.logging.config.class",
        "java.util.logging.SimpleFormatter.format"};

    private DefaultConsoleLogging() {
    }

    /** True when an INFO record of {@code loggerName} would be printed on standard error and nowhere else. */
    static boolean printsInfoOnStandardError(String loggerName) {
        try {
            for (String property : CONFIG_PROPERTIES) {
                if (System.getProperty(property) != null) {
                    return false;
                }
            }
            if (!JDK_LOGGER_FINDER.equals(System.LoggerFinder.getLoggerFinder().getClass().getName())
                    || LogManager.getLogManager().getProperty("java.util.logging.SimpleFormatter.format") != null) {
                return false;
            }
            Logger logger = Logger.getLogger(loggerName);
            if (!logger.isLoggable(Level.INFO)) {
                return false;
            }
            for (Logger step = logger; step.getParent() != null; step = step.getParent()) {
                if (step.getHandlers().length > 0 || !step.getUseParentHandlers() || step.getFilter() != null) {
                    return false;
                }
            }
            Handler[] handlers = Logger.getLogger("").getHandlers();
            return handlers.length == 1 && isDefaultConsole(handlers[0]);
        } catch (RuntimeException e) {
            return false; // a security manager's refusal, say: the application's logging decides
        }
    }

    private static boolean isDefaultConsole(Handler handler) {
        return handler.getClass() == ConsoleHandler.class && handler.getFormatter() != null
                && handler.getFormatter().getClass() == SimpleFormatter.class && handler.getFilter() == null
                && handler.getLevel().intValue() <= Level.INFO.intValue();
    }
}
