package io.fastrmi.fastsockets.transport;

import io.fastrmi.fastsockets.nativelib.NativeLibraries;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import java.nio.file.Path;

/**
 * For the mains that load the library in a JVM of their own (apart from {@link LibraryJvm}, so that
 * they need nothing of JUnit).
 */
final class LibraryMains {

    private LibraryMains() {
    }

    /** The library at {@code path}, bound as the JVM's settings say, after a {@code BINDING} line that says how. */
    static NativeLibrary load(String path, Class<?> main) {
        NativeLibrary library = NativeLibraries.load(Path.of(path), main.getClassLoader());
        if (library == null) {
            throw new IllegalStateException(NativeLibraries.unavailableReason());
        }
        System.out.println("BINDING " + NativeLibraries.binding());
        return library;
    }
}
