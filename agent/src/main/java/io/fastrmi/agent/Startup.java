package io.fastrmi.agent;

import io.fastrmi.fastsockets.FastRmiSockets;
import io.fastrmi.fastsockets.NativeTransports;
import io.fastrmi.fastsockets.config.ConfigException;
import io.fastrmi.fastsockets.config.FastRmiConfig;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;

/** The part of start-up that uses FastRMI's runtime classes: called once they are on the boot class path. */
final class Startup {

    private Startup() {
    }

    /** Loads the config (a bad one throws before anything changes), then switches FastRMI on. */
    static void installRuntime(Instrumentation inst, AgentOptions.ConfigSource source)
            throws ConfigException, ClassNotFoundException, UnmodifiableClassException {
        FastRmiConfig config = ConfigLoading.load(source, System.getProperties(), System.getenv());
        FastRmiSockets.install(config);
        // The library is only looked for when a native transport is first offered.
        NativeTransports.configure(new NativeLibraryFile.Locator(config), Startup.class.getClassLoader(), config.spin());
        Module helpers = Class.forName("io.fastrmi.agent.bootstrap.RmiCalls", false, null).getModule();
        RmiInstrumentation.install(inst, helpers);
    }
}
