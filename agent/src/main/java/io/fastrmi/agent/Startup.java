package io.fastrmi.agent;

import io.fastrmi.config.ConfigException;
import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.fastsockets.jvm.JvmScope;
import io.fastrmi.fastsockets.transport.NativeTransports;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.util.Map;
import java.util.Set;

/** The part of start-up that uses FastRMI's runtime classes: called once they are on the boot class path. */
final class Startup {

    private Startup() {
    }

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
     * The lean format: the agent says where its rmi-patch classes are and offers the format. All
     * else waits for RMI: java.base's edges to the helpers when the weaver starts (RmiInstrumentation),
     * the classes and java.io's metadata on the first lean connection (LeanStreams), which fails
     * clearly if this JDK lacks what it needs.
     */
    private static void installLeanFormat() throws java.io.IOException {
        io.fastrmi.agent.bootstrap.RmiPatch.carriedBy(BootstrapJar.agentJar());
        io.fastrmi.fastsockets.handshake.Installation.leanFormatInstalled();
    }

    /**
     * Loads the config (a bad one throws before anything changes), then switches FastRMI on; true
     * when it takes every socket of the JVM ({@code scope = jvm}), not only RMI's.
     */
    static boolean installRuntime(Instrumentation inst, AgentOptions.ConfigSource source)
            throws ConfigException, ClassNotFoundException, UnmodifiableClassException, java.io.IOException {
        FastRmiConfig config = ConfigLoading.load(source, System.getProperties(), System.getenv());
        Installation.install(config);
        // The library is only looked for when a native transport is first offered.
        NativeTransports.configure(new NativeLibraryFile.Locator(config), Startup.class.getClassLoader(), config.spin(),
                config.waitMode());
        Module helpers = Class.forName("io.fastrmi.agent.bootstrap.RmiCalls", false, null).getModule();
        installLeanFormat();
        RmiInstrumentation.install(inst, helpers);
        if (config.scope() == FastRmiConfig.Scope.JVM) {
            installJvmScope(inst);
            return true;
        }
        return false;
    }
}
