package io.fastrmi.optrmi.lean;

import java.util.List;

/**
 * What the lean format needs of {@code java.base}, written once: {@code java.io} open (it reads the
 * JDK's serialization metadata, {@code ObjectStreamClass}, as {@link JdkSerialClasses} does) and
 * {@code jdk.internal.misc} exported (it gets and sets fields with the JDK's Unsafe, as the JDK's
 * field reflector does: {@link DirectFields}). The agent grants both to its helpers
 * ({@code RmiInstrumentation}); a JVM that runs the lean classes without the agent (optrmi's tests,
 * lean-bench) passes {@link #jvmArgs()}. The Makefile and optrmi's pom cannot name these constants:
 * {@code LeanModuleAccessTest} fails when their copies differ.
 */
public final class LeanModuleAccess {

    public static final String OPEN_PACKAGE = "java.io";
    public static final String EXPORTED_PACKAGE = "jdk.internal.misc";

    /** The same, as command-line flags (constants, so that an annotation such as JMH's {@code @Fork} can name them). */
    public static final String OPENS_FLAG = "--add-opens";
    public static final String OPENS_VALUE = "java.base/" + OPEN_PACKAGE + "=ALL-UNNAMED";
    public static final String EXPORTS_FLAG = "--add-exports";
    public static final String EXPORTS_VALUE = "java.base/" + EXPORTED_PACKAGE + "=ALL-UNNAMED";

    private LeanModuleAccess() {
    }

    public static List<String> jvmArgs() {
        return List.of(OPENS_FLAG, OPENS_VALUE, EXPORTS_FLAG, EXPORTS_VALUE);
    }
}
