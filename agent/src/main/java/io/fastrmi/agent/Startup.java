package io.fastrmi.agent;

import io.fastrmi.agent.bootstrap.RmiPatch;
import io.fastrmi.config.ConfigException;
import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.fastsockets.handshake.JfrEvents;
import io.fastrmi.fastsockets.jvm.JvmScope;
import io.fastrmi.fastsockets.transport.NativeTransports;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/** The part of start-up that uses FastRMI's runtime classes: called once they are on the boot class path. */
final class Startup {

    private Startup() {
    }

    /** FastRMI's JFR event classes, named: premain leaves them unloaded in a JVM that never records. */
    private static final String[] EVENT_CLASSES = {"io.fastrmi.fastsockets.handshake.HandshakeEvent",
            "io.fastrmi.agent.bootstrap.RmiCallEvent"};

    /**
     * Every socket of the JVM: FastRMI's socket implementation calls the JDK's own through
     * {@code java.net}, which is opened to it (the boot class path's unnamed module) for that.
     */
    private static void installJvmScope(Instrumentation inst) throws java.io.IOException {
        Module fastsockets = JvmScope.class.getModule();
        inst.redefineModule(Object.class.getModule(), Set.of(), Map.of(), Map.of("java.net", Set.of(fastsockets)),
                Set.of(), Map.of());
        JvmScope.install(BootstrapJar.cacheDirectory().resolve("listeners"));
    }

    /**
     * Loads the config (a bad one throws before anything changes) and registers the transformer;
     * true when FastRMI takes every socket of the JVM ({@code scope = jvm}), not only RMI's. Under
     * {@code scope = rmi} the runtime starts when RMI loads its first instrumented class
     * ({@link RmiInstrumentation}): a JVM that never uses RMI pays for the config and no more (and,
     * where it records JFR, for registering FastRMI's two event types as JFR starts).
     */
    static boolean installRuntime(Instrumentation inst, AgentOptions.ConfigSource source)
            throws ConfigException, UnmodifiableClassException, java.io.IOException {
        FastRmiConfig config = ConfigLoading.load(source, System.getProperties(), System.getenv());
        Path agentJar = BootstrapJar.agentJar();
        JfrEvents.registerAtStart(EVENT_CLASSES);
        if (config.scope() == FastRmiConfig.Scope.JVM) {
            startRuntime(config, agentJar);
            RmiInstrumentation.install(inst, config, agentJar);
            installJvmScope(inst);
            return true;
        }
        RmiInstrumentation.install(inst, config, agentJar);
        return false;
    }

    /**
     * Switches FastRMI's runtime on, once: RMI's sockets become FastRMI's, the native transports learn
     * where the library is (looked for only when one is first offered), and the lean format where the
     * agent's rmi-patch classes are (it is offered once the weaver has the serialization classes:
     * {@link RmiInstrumentation}). All else waits for a connection: the lean format's classes and
     * java.io's metadata load on the first lean connection (LeanStreams), which fails clearly if this
     * JDK lacks what it needs.
     */
    static synchronized void startRuntime(FastRmiConfig config, Path agentJar) {
        if (Installation.installed()) {
            return;
        }
        Installation.install(config);
        NativeTransports.configure(new NativeLibraryFile.Locator(config), Startup.class.getClassLoader(), config.spin(),
                config.waitMode(), config.binding());
        RmiPatch.carriedBy(agentJar);
    }
}
