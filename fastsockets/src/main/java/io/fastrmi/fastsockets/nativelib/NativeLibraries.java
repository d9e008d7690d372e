package io.fastrmi.fastsockets.nativelib;

import java.nio.file.Path;

/**
 * The native library of this JVM, once loaded, or why there is none. Loading is asked for by the
 * agent; the FFM binding class exists only on Java 22+.
 */
public final class NativeLibraries {

    /** The binding, in META-INF/versions/22 of the agent jar only. */
    static final String FFM_BINDING = "io.fastrmi.fastsockets.ffm.FfmNativeLibrary";

    private static volatile NativeLibrary loaded;
    private static volatile String unavailable = "not loaded yet";

    private NativeLibraries() {
    }

    /** The library, or null (see {@link #unavailableReason()}). */
    public static NativeLibrary get() {
        return loaded;
    }

    public static String unavailableReason() {
        return unavailable;
    }

    /**
     * Binds the library at {@code file} through {@code loader} (the agent's class loader, which
     * honours multi-release entries). Returns it, or null with the reason kept.
     */
    public static synchronized NativeLibrary load(Path file, ClassLoader loader) {
        if (loaded != null) {
            return loaded;
        }
        if (Runtime.version().feature() < 22) {
            unavailable = "the native transports need JDK 22 or newer (FFM API); this is JDK " + Runtime.version().feature();
            return null;
        }
        try {
            Class<?> binding = Class.forName(FFM_BINDING, true, loader);
            loaded = (NativeLibrary) binding.getConstructor(Path.class).newInstance(file);
            unavailable = null;
            return loaded;
        } catch (java.lang.reflect.InvocationTargetException e) {
            unavailable = "cannot load " + file + ": " + e.getCause();
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            unavailable = "cannot load " + file + ": " + e;
        }
        return null;
    }
}
