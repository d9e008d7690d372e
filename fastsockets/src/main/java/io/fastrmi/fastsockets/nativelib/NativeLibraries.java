package io.fastrmi.fastsockets.nativelib;

import java.nio.file.Path;

/**
 * The native library of this JVM, once loaded, or why there is none. Loading is asked for by the
 * agent; the FFM binding class exists only on Java 22+, the JNI one everywhere.
 */
public final class NativeLibraries {

    /** The FFM binding, in META-INF/versions/22 of the agent jar only. */
    static final String FFM_BINDING = "io.fastrmi.fastsockets.ffm.FfmNativeLibrary";
    /** The JNI binding, on every JDK. */
    static final String JNI_BINDING = "io.fastrmi.fastsockets.jni.JniNativeLibrary";
    /** The config's {@code binding} as a system property: ffm or jni. */
    public static final String BINDING_PROPERTY = "fastrmi.binding";

    private static volatile NativeLibrary loaded;
    private static volatile String unavailable = "not loaded yet";
    private static volatile String binding = "none";

    private NativeLibraries() {
    }

    /** The library, or null (see {@link #unavailableReason()}). */
    public static NativeLibrary get() {
        return loaded;
    }

    public static String unavailableReason() {
        return unavailable;
    }

    /** Which binding the library was loaded through, and why: "jni (JDK 17 has no FFM)". */
    public static String binding() {
        return binding;
    }

    /**
     * The binding for this JDK: JNI unless the setting ({@code binding} in the config, {@code
     * -Dfastrmi.binding}) names FFM, which needs 22 or newer. Returns the class and why it was
     * chosen; IllegalArgumentException for a setting that cannot be. JNI is the default on 22+ too:
     * a call costs the same through either once compiled, but linking FFM's downcalls spins about
     * a hundred method-handle classes whose compilation costs each JVM about 180 ms of CPU after
     * RMI starts (docs/benchmarks.md, "JDK 17 through JNI").
     */
    static String[] chooseBinding(int feature, String setting) {
        if (setting != null && !setting.isEmpty()) {
            switch (setting) {
                case "jni":
                    return new String[] {JNI_BINDING, "jni (binding = jni)"};
                case "ffm":
                    if (feature < 22) {
                        throw new IllegalArgumentException("binding = ffm needs JDK 22 or newer; this is JDK " + feature);
                    }
                    return new String[] {FFM_BINDING, "ffm (binding = ffm)"};
                default:
                    throw new IllegalArgumentException("binding = " + setting + ": ffm or jni");
            }
        }
        if (feature < 22) {
            return new String[] {JNI_BINDING, "jni (JDK " + feature + " has no final FFM API)"};
        }
        return new String[] {JNI_BINDING, "jni (the default; binding = ffm for FFM)"};
    }

    /** {@link #load(Path, ClassLoader, String)} with {@code -Dfastrmi.binding} (tools and tests, which read no config). */
    public static NativeLibrary load(Path file, ClassLoader loader) {
        return load(file, loader, System.getProperty(BINDING_PROPERTY));
    }

    /**
     * Binds the library at {@code file} through {@code loader} (the agent's class loader, which
     * honours multi-release entries), as {@code setting} says ({@link #chooseBinding}). Returns it,
     * or null with the reason kept.
     */
    public static synchronized NativeLibrary load(Path file, ClassLoader loader, String setting) {
        if (loaded != null) {
            return loaded;
        }
        String[] chosen;
        try {
            chosen = chooseBinding(Runtime.version().feature(), setting);
        } catch (IllegalArgumentException e) {
            unavailable = e.getMessage();
            return null;
        }
        try {
            Class<?> bindingClass = Class.forName(chosen[0], true, loader);
            loaded = (NativeLibrary) bindingClass.getConstructor(Path.class).newInstance(file);
            unavailable = null;
            binding = chosen[1];
            return loaded;
        } catch (java.lang.reflect.InvocationTargetException e) {
            unavailable = "cannot load " + file + " through " + chosen[1] + ": " + e.getCause();
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            unavailable = "cannot load " + file + " through " + chosen[1] + ": " + e;
        }
        return null;
    }
}
