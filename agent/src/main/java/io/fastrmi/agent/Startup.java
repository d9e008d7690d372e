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
     * The lean format reads the JDK's serialization metadata (java.io, opened to the runtime), and
     * the advice inlined into ObjectOutputStream and ObjectInputStream calls the runtime (java.base
     * reads it). Offered in handshakes once that is set up; what the format reads of java.io is looked
     * up on the first lean connection (LeanStreams), which fails clearly if this JDK lacks it.
     */
    private static void installLeanFormat(Instrumentation inst, Module helpers) {
        inst.redefineModule(Object.class.getModule(), Set.of(helpers), Map.of(), Map.of("java.io", Set.of(helpers)),
                Set.of(), Map.of());
        // The JDK's serialization classes are not touched here: loaded now, they would be woven now,
        // and Byte Buddy would load at every JVM's start instead of at RMI's first class.
        String unavailable = carryRmiPatch();
        if (unavailable == null) {
            io.fastrmi.fastsockets.handshake.Negotiation.leanFormatInstalled();
        } else {
            System.getLogger(FastRmiAgent.LOGGER).log(System.Logger.Level.WARNING,
                    "FastRMI: the lean wire format is off in this JVM: " + unavailable);
        }
    }

    /** Reads the classes of src/rmi-patch from the agent jar for LeanStreams; why not, or null. */
    private static String carryRmiPatch() {
        Map<String, byte[]> classes = new java.util.HashMap<>();
        for (String name : io.fastrmi.agent.bootstrap.LeanStreams.PATCH_CLASSES) {
            try (java.io.InputStream in = Startup.class.getResourceAsStream(io.fastrmi.agent.bootstrap.LeanStreams.PATCH + name + ".class")) {
                if (in == null) {
                    return "the agent jar lacks " + io.fastrmi.agent.bootstrap.LeanStreams.PATCH + name + ".class";
                }
                classes.put(name, in.readAllBytes());
            } catch (java.io.IOException e) {
                return "cannot read " + name + " from the agent jar: " + e.getMessage();
            }
        }
        io.fastrmi.agent.bootstrap.LeanStreams.carry(classes);
        return null;
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
        installLeanFormat(inst, helpers);
        RmiInstrumentation.install(inst, helpers);
        if (config.scope() == FastRmiConfig.Scope.JVM) {
            installJvmScope(inst);
            return true;
        }
        return false;
    }
}
