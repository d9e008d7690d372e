package io.fastrmi.agent;

import io.fastrmi.config.FastRmiConfig;
import io.fastrmi.fastsockets.handshake.Installation;
import io.fastrmi.optrmi.lean.LeanModuleAccess;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.io.UncheckedIOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.nio.file.Path;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the agent touches the JDK's RMI classes. Matching is by exact internal name in a plain
 * transformer that names no Byte Buddy type; FastRMI's runtime starts when the first of these
 * classes loads, so a JVM that never uses RMI pays next to nothing for the agent, and Byte Buddy
 * ({@link AdviceWeaver}) only for a class that no JVM before it wove for this JDK and agent
 * ({@link WovenClassCache}).
 */
final class RmiInstrumentation implements ClassFileTransformer {

    /** The classes instrumented, by internal name. */
    static final Set<String> TARGETS = Set.of(
            "sun/rmi/server/UnicastRef",
            "sun/rmi/server/UnicastServerRef",
            "sun/rmi/transport/StreamRemoteCall",
            "sun/rmi/transport/tcp/TCPChannel",
            "sun/rmi/transport/tcp/TCPConnection",
            "sun/rmi/transport/tcp/TCPEndpoint",
            // The lean format: the final writeObject/readObject of RMI's marshal streams.
            "java/io/ObjectOutputStream",
            "java/io/ObjectInputStream");

    private final Instrumentation inst;
    private final Module rmi;
    private final FastRmiConfig config;
    private final Path agentJar;
    /** Set once RMI's first class has loaded and FastRMI's runtime is on ({@link #started}). */
    private volatile boolean rmiStarted;
    /** The classes woven by JVMs before this one; null when there is nowhere to keep them. */
    private WovenClassCache cache;
    /** Byte Buddy's weaver, made when a class is not in the cache (its own lock: see {@link #weaveLeftForRmi}). */
    private final Object weaverLock = new Object();
    private AdviceWeaver weaver;
    /** Serialization classes that loaded before RMI's first class, left as they were (see {@link #transform}). */
    private final Set<String> leftForRmi = new HashSet<>();

    private RmiInstrumentation(Instrumentation inst, Module rmi, FastRmiConfig config, Path agentJar) {
        this.inst = inst;
        this.rmi = rmi;
        this.config = config;
        this.agentJar = agentJar;
    }

    /**
     * Registers the transformer and retransforms targets that are already loaded (when attached
     * late, or RMI used before premain). The rest waits for RMI's first class (see {@link #started}).
     * Where RMI has loaded a target already, the runtime is started first, here: started inside this
     * retransformation it would ask for a second one of the serialization classes while this one
     * holds them (the JVM redefines a class for one caller at a time: a deadlock). Serialization
     * classes without RMI are only noted, to be woven when RMI comes.
     */
    static void install(Instrumentation inst, FastRmiConfig config, Path agentJar) throws UnmodifiableClassException {
        Module rmi = ModuleLayer.boot().findModule("java.rmi").orElse(null);
        if (rmi == null) {
            System.getLogger(FastRmiAgent.LOGGER).log(System.Logger.Level.INFO, "FastRMI: this runtime has no java.rmi module; nothing to instrument");
            return;
        }
        RmiInstrumentation transformer = new RmiInstrumentation(inst, rmi, config, agentJar);
        inst.addTransformer(transformer, true);
        List<Class<?>> loaded = new ArrayList<>();
        boolean rmiStarted = false;
        for (Class<?> type : inst.getAllLoadedClasses()) {
            if (mayBeTarget(type, rmi) && TARGETS.contains(type.getName().replace('.', '/'))) {
                loaded.add(type);
                rmiStarted |= type.getModule() == rmi;
            }
        }
        if (rmiStarted) {
            transformer.started();
            inst.retransformClasses(loaded.toArray(new Class<?>[0]));
        } else {
            synchronized (transformer) {
                for (Class<?> type : loaded) {
                    transformer.leftForRmi.add(type.getName().replace('.', '/'));
                }
            }
        }
    }

    /**
     * Whether {@code type} can be one of {@link #TARGETS}, without its name: premain looks at every
     * class the JVM has loaded (about a thousand), and making, copying and hashing each one's name in
     * the interpreter cost 2-3 ms of every JVM's start. A class of java.rmi, or of java.base that
     * reads or writes objects (the targets there are ObjectInputStream and ObjectOutputStream).
     */
    static boolean mayBeTarget(Class<?> type, Module rmi) {
        Module module = type.getModule();
        return module == rmi || module == Object.class.getModule()
                && (ObjectOutput.class.isAssignableFrom(type) || ObjectInput.class.isAssignableFrom(type));
    }

    private static Module helpersModule() {
        try {
            return Class.forName("io.fastrmi.agent.bootstrap.RmiCalls", false, null).getModule();
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("FastRMI's boot jar is not on the boot class path", e);
        }
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> classBeingRedefined,
            ProtectionDomain protectionDomain, byte[] classfileBuffer) {
        if (loader != null || className == null || !TARGETS.contains(className)) {
            return null;
        }
        if (className.startsWith("java/io/") && !rmiStarted) {
            synchronized (this) {
                if (!rmiStarted) {
                    // Serialization is no sign of RMI: weaving it would load Byte Buddy (about 400 ms)
                    // in every JVM that serializes. RMI's first class weaves it (retransformed).
                    leftForRmi.add(className);
                    return null;
                }
            }
        }
        try {
            started();
            return woven(className, classfileBuffer);
        } catch (Throwable t) {
            // A class that cannot be woven stays as it was: RMI keeps working, without FastRMI there.
            System.getLogger(FastRmiAgent.LOGGER).log(System.Logger.Level.ERROR, "FastRMI: cannot instrument " + className.replace('/', '.')
                    + "; RMI keeps working without FastRMI there", t);
            return null;
        }
    }

    /** {@code original} with its advice: as a JVM before this one wove it, or woven now (and kept). */
    private byte[] woven(String className, byte[] original) {
        WovenClassCache kept = cache;
        byte[] woven = kept == null ? null : kept.find(className, original);
        if (woven == null) {
            woven = weaver().weave(className, original);
            if (kept != null) {
                kept.keep(className, original, woven);
            }
        }
        return woven;
    }

    /**
     * Byte Buddy's weaver, made for the first class the cache does not have. Its own lock, not this
     * transformer's: {@link #started} holds that while another thread weaves the serialization classes.
     */
    private AdviceWeaver weaver() {
        synchronized (weaverLock) {
            if (weaver == null) {
                try {
                    BootstrapJar.appendWeaverToSystemClassPath(inst);
                } catch (IOException e) {
                    throw new UncheckedIOException("FastRMI cannot add Byte Buddy to the class path: " + e.getMessage(), e);
                }
                weaver = new AdviceWeaver();
            }
            return weaver;
        }
    }

    /**
     * Done at the first RMI class load: only then does FastRMI's runtime start, does {@code java.rmi}
     * learn to see the helpers, and are the serialization classes woven (milliseconds a JVM without
     * RMI does not pay).
     */
    private void started() {
        if (rmiStarted) {
            return;
        }
        synchronized (this) {
            if (rmiStarted) {
                return;
            }
            Startup.startRuntime(config, agentJar);
            // The boot class path's unnamed module, where the helpers and the runtime are.
            Module helpers = helpersModule();
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
            // java.net (with java.io): a fast TCP connection's reads learn their socket's
            // descriptor, to sleep where another thread can wake them (SocketDescriptors).
            inst.redefineModule(Object.class.getModule(), Set.of(helpers),
                    Map.of(LeanModuleAccess.EXPORTED_PACKAGE, Set.of(helpers)),
                    Map.of(LeanModuleAccess.OPEN_PACKAGE, Set.of(helpers), "java.net", Set.of(helpers)), Set.of(),
                    Map.of());
            try {
                cache = WovenClassCache.forAgent(agentJar, BootstrapJar.cacheDirectory());
            } catch (IOException e) {
                cache = null; // no private folder: every class is woven, as without a cache
            }
            rmiStarted = true;
            StartLine.log();
            if (weaveLeftForRmi()) {
                // Offered only now: a lean connection's calls go through the woven serialization classes.
                Installation.leanFormatInstalled();
            }
        }
    }

    /**
     * Weaves the serialization classes that loaded before RMI did, now that it has, by
     * retransforming them (only method bodies change). Called holding this transformer's lock, so no
     * class is left aside meanwhile, and from inside a class's transformation, where the JDK would
     * run no transformer for a retransformation this thread asks for (its agents' reentrancy
     * guard): a thread of its own asks, and this one waits, so that RMI runs no call before the
     * lean format's hooks are in place (that thread may make the weaver meanwhile: {@link #weaver}).
     */
    private boolean weaveLeftForRmi() {
        if (leftForRmi.isEmpty()) {
            return true;
        }
        List<String> names = List.copyOf(leftForRmi);
        leftForRmi.clear();
        Retransforming retransforming = new Retransforming(names);
        Thread weaving = new Thread(retransforming, "fastrmi-weave-serialization");
        weaving.start();
        boolean interrupted = false;
        while (weaving.isAlive()) {
            try {
                weaving.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return retransforming.woven; // join: the thread's write is seen
    }

    /** A class, not a lambda: a lambda costs the JVM a class spun at its first use (StartupIT). */
    private final class Retransforming implements Runnable {
        private final List<String> names;
        private boolean woven;

        Retransforming(List<String> names) {
            this.names = names;
        }

        @Override
        public void run() {
            woven = retransform(names);
        }
    }

    /** Retransforms the named classes; false, said once, when that fails. */
    private boolean retransform(List<String> names) {
        try {
            List<Class<?>> loaded = new ArrayList<>();
            for (String name : names) {
                loaded.add(Class.forName(name.replace('/', '.'), false, null));
            }
            inst.retransformClasses(loaded.toArray(new Class<?>[0]));
            return true;
        } catch (ClassNotFoundException | UnmodifiableClassException | RuntimeException e) {
            System.getLogger(FastRmiAgent.LOGGER).log(System.Logger.Level.ERROR, "FastRMI: cannot instrument " + names
                    + "; RMI keeps working without the lean format", e);
            return false;
        }
    }
}
