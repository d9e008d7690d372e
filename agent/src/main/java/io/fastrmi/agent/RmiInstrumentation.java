package io.fastrmi.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the agent touches the JDK's RMI classes. Matching is by exact internal name in a plain
 * transformer that names no Byte Buddy type; Byte Buddy is set up when the first of these classes
 * loads ({@link AdviceWeaver}), so a JVM that never uses RMI pays next to nothing for the agent.
 */
final class RmiInstrumentation implements ClassFileTransformer {

    /** The classes instrumented, by internal name. */
    static final Set<String> TARGETS = Set.of(
            "sun/rmi/server/UnicastRef",
            "sun/rmi/server/UnicastServerRef",
            "sun/rmi/transport/StreamRemoteCall",
            "sun/rmi/transport/tcp/TCPEndpoint",
            // The lean format: the final writeObject/readObject of RMI's marshal streams.
            "java/io/ObjectOutputStream",
            "java/io/ObjectInputStream");

    private final Instrumentation inst;
    private final Module rmi;
    private final Module helpers;
    private volatile AdviceWeaver weaver;

    private RmiInstrumentation(Instrumentation inst, Module rmi, Module helpers) {
        this.inst = inst;
        this.rmi = rmi;
        this.helpers = helpers;
    }

    /**
     * Registers the transformer and retransforms targets that are already loaded (when attached
     * late, or RMI used before premain). The rest waits for RMI's first class (see {@link #weaver}).
     */
    static void install(Instrumentation inst, Module helpers) throws UnmodifiableClassException {
        Module rmi = ModuleLayer.boot().findModule("java.rmi").orElse(null);
        if (rmi == null) {
            System.getLogger(FastRmiAgent.LOGGER).log(System.Logger.Level.INFO, "FastRMI: this runtime has no java.rmi module; nothing to instrument");
            return;
        }
        RmiInstrumentation transformer = new RmiInstrumentation(inst, rmi, helpers);
        inst.addTransformer(transformer, true);
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> type : inst.getAllLoadedClasses()) {
            // The module first: a field read, where a class's name is made on first asking.
            if ((type.getModule() == rmi || type.getModule() == Object.class.getModule())
                    && TARGETS.contains(type.getName().replace('.', '/'))) {
                loaded.add(type);
            }
        }
        if (!loaded.isEmpty()) {
            inst.retransformClasses(loaded.toArray(new Class<?>[0]));
        }
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> classBeingRedefined,
            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        if (loader != null || className == null || !TARGETS.contains(className)) {
            return null;
        }
        try {
            return weaver().weave(className, classfileBuffer);
        } catch (Throwable t) {
            // A class that cannot be woven stays as it was: RMI keeps working, without FastRMI there.
            System.getLogger(FastRmiAgent.LOGGER).log(System.Logger.Level.ERROR, "FastRMI: cannot instrument " + className.replace('/', '.')
                    + "; RMI keeps working without FastRMI there", t);
            return null;
        }
    }

    /**
     * Made at the first RMI class load: only then do Byte Buddy's classes load, and only then does
     * {@code java.rmi} learn to see the helpers (a few milliseconds a JVM without RMI does not pay).
     */
    private AdviceWeaver weaver() {
        AdviceWeaver current = weaver;
        if (current == null) {
            synchronized (this) {
                current = weaver;
                if (current == null) {
                    // Inlined advice runs as java.rmi code calling into the boot loader's unnamed
                    // module, which needs a reads edge. HotSpot adds one itself once a class of the
                    // module is transformed (Modules.transformedByAgent, seen on 17.0.15 and 25.0.3);
                    // saying it here keeps us independent of that. The helpers also read RMI's
                    // connection objects reflectively.
                    inst.redefineModule(rmi, Set.of(helpers), Map.of(),
                            Map.of("sun.rmi.transport", Set.of(helpers), "sun.rmi.transport.tcp", Set.of(helpers)),
                            Set.of(), Map.of());
                    // The lean format: advice inlined into ObjectOutputStream/ObjectInputStream calls
                    // the helpers, which read the JDK's serialization metadata in java.io and get and
                    // set fields with the JDK's Unsafe, as its field reflector does (DirectFields).
                    inst.redefineModule(Object.class.getModule(), Set.of(helpers),
                            Map.of("jdk.internal.misc", Set.of(helpers)),
                            Map.of("java.io", Set.of(helpers)), Set.of(), Map.of());
                    try {
                        BootstrapJar.appendWeaverToSystemClassPath(inst);
                    } catch (IOException e) {
                        throw new UncheckedIOException("FastRMI cannot add Byte Buddy to the class path: " + e.getMessage(), e);
                    }
                    current = weaver = new AdviceWeaver();
                    StartLine.log();
                }
            }
        }
        return current;
    }
}
