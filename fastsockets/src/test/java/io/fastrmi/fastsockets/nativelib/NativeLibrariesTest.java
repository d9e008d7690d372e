package io.fastrmi.fastsockets.nativelib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Which binding of the library a JDK gets, and why, by the config's {@code binding}. */
class NativeLibrariesTest {

    /** The library opens libfabric at its first use, and says 0 when it could not. */
    @Test
    void libfabricsVersionIsSaidOrNamedNotLoadable() {
        assertEquals("1.17", NativeLibrary.ofiVersionName(0x00010011));
        assertEquals("not loadable", NativeLibrary.ofiVersionName(0));
    }

    @Test
    void jdk22AndNewerGetJniUnlessFfmIsNamed() {
        assertArrayEquals(new String[] {NativeLibraries.JNI_BINDING, "jni (the default; binding = ffm for FFM)"},
                NativeLibraries.chooseBinding(25, ""));
        assertArrayEquals(new String[] {NativeLibraries.JNI_BINDING, "jni (the default; binding = ffm for FFM)"},
                NativeLibraries.chooseBinding(22, null));
        assertArrayEquals(new String[] {NativeLibraries.JNI_BINDING, "jni (binding = jni)"},
                NativeLibraries.chooseBinding(25, "jni"));
        assertArrayEquals(new String[] {NativeLibraries.FFM_BINDING, "ffm (binding = ffm)"},
                NativeLibraries.chooseBinding(25, "ffm"));
    }

    @Test
    void olderJdksGetJni() {
        assertArrayEquals(new String[] {NativeLibraries.JNI_BINDING, "jni (JDK 17 has no final FFM API)"},
                NativeLibraries.chooseBinding(17, ""));
        assertArrayEquals(new String[] {NativeLibraries.JNI_BINDING, "jni (binding = jni)"},
                NativeLibraries.chooseBinding(17, "jni"));
        assertEquals("binding = ffm needs JDK 22 or newer; this is JDK 21",
                assertThrows(IllegalArgumentException.class, () -> NativeLibraries.chooseBinding(21, "ffm")).getMessage());
    }

    @Test
    void anUnknownBindingIsRefusedByName() {
        assertEquals("binding = panama: ffm or jni",
                assertThrows(IllegalArgumentException.class, () -> NativeLibraries.chooseBinding(25, "panama")).getMessage());
    }
}
