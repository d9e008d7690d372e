package io.fastrmi.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;
import java.util.logging.XMLFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which logging setups leave the start line to FastRMI's own print and which keep it in JUL's hands. */
class DefaultConsoleLoggingTest {

    private static final String NAME = FastRmiAgent.LOGGER;
    /** Held: JUL keeps loggers weakly, and one collected would come back without what a test set on it. */
    private Logger agent;
    private Logger fastrmi;
    private Logger root;

    @BeforeEach
    void theJdksOwnConfiguration() throws IOException {
        LogManager.getLogManager().readConfiguration();
        agent = Logger.getLogger(NAME);
        fastrmi = Logger.getLogger("io.fastrmi");
        root = Logger.getLogger("");
    }

    @AfterEach
    void restore() throws IOException {
        LogManager.getLogManager().readConfiguration();
    }

    @Test
    void theJdksDefaultPrintsOnStandardError() {
        assertTrue(DefaultConsoleLogging.printsInfoOnStandardError(NAME));
    }

    @Test
    void aHandlerOfTheApplicationsAnywhereOnTheWayKeepsTheLineInJul() {
        Handler elsewhere = new StreamHandler();
        fastrmi.addHandler(elsewhere);
        assertFalse(DefaultConsoleLogging.printsInfoOnStandardError(NAME), "a handler on a parent logger");
        fastrmi.removeHandler(elsewhere);
        root.addHandler(elsewhere);
        assertFalse(DefaultConsoleLogging.printsInfoOnStandardError(NAME), "a second handler on the root");
        root.removeHandler(elsewhere);
        assertTrue(DefaultConsoleLogging.printsInfoOnStandardError(NAME), "back to the default");
    }

    @Test
    void aLoggerThatDoesNotPassItOnOrALevelAboveInfoPrintsNothingOfOurs() {
        fastrmi.setUseParentHandlers(false);
        assertFalse(DefaultConsoleLogging.printsInfoOnStandardError(NAME), "the application cut the way to the root");
        fastrmi.setUseParentHandlers(true);
        agent.setLevel(Level.WARNING);
        assertFalse(DefaultConsoleLogging.printsInfoOnStandardError(NAME), "INFO is off for the agent's logger");
        agent.setLevel(null);
        consoleHandler().setLevel(Level.WARNING);
        assertFalse(DefaultConsoleLogging.printsInfoOnStandardError(NAME), "the console prints warnings only");
    }

    @Test
    void aFormatOrFormatterOfTheApplicationsKeepsTheLineInJul() throws IOException {
        consoleHandler().setFormatter(new XMLFormatter());
        assertFalse(DefaultConsoleLogging.printsInfoOnStandardError(NAME), "an XML formatter");
        LogManager.getLogManager().readConfiguration(new ByteArrayInputStream(
                "handlers = java.util.logging.ConsoleHandler\njava.util.logging.SimpleFormatter.format = %5$s%n\n"
                        .getBytes(StandardCharsets.ISO_8859_1)));
        root = Logger.getLogger("");
        assertFalse(DefaultConsoleLogging.printsInfoOnStandardError(NAME), "a format of the application's");
    }

    private ConsoleHandler consoleHandler() {
        Handler[] handlers = root.getHandlers();
        assertTrue(handlers.length == 1 && handlers[0] instanceof ConsoleHandler, "the default handlers");
        return (ConsoleHandler) handlers[0];
    }
}
