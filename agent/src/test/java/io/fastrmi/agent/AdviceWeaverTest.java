package io.fastrmi.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Weaves the running JDK's own RMI classes, as the agent does, without loading them. */
class AdviceWeaverTest {

    private final AdviceWeaver weaver = new AdviceWeaver();

    @Test
    void theTransformerMatchesExactlyTheWovenClasses() {
        assertEquals(RmiInstrumentation.TARGETS, weaver.adviceByClass.keySet());
    }

    @ParameterizedTest
    @ValueSource(strings = {"sun/rmi/server/UnicastRef", "sun/rmi/server/UnicastServerRef",
            "sun/rmi/transport/StreamRemoteCall"})
    void eachTargetIsWovenWithCallsIntoTheBootstrapHelpers(String className) throws Exception {
        byte[] original = jdkClassFile(className);
        byte[] woven = weaver.weave(className, original);
        assertFalse(Arrays.equals(original, woven));
        assertFalse(contains(original, "io/fastrmi/agent/bootstrap/RmiCalls"));
        assertTrue(contains(woven, "io/fastrmi/agent/bootstrap/RmiCalls"),
                "the woven class calls the helpers on the boot class path");
        assertFalse(contains(woven, "io/fastrmi/agent/advice"), "advice is inlined, never called");
    }

    @Test
    void anUnknownClassIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> weaver.weave("java/lang/Object", new byte[0]));
    }

    static byte[] jdkClassFile(String className) throws Exception {
        Module rmi = ModuleLayer.boot().findModule("java.rmi").orElseThrow();
        try (InputStream in = rmi.getResourceAsStream(className + ".class")) {
            assertNotNull(in, className);
            return in.readAllBytes();
        }
    }

    private static boolean contains(byte[] classFile, String text) {
        return new String(classFile, StandardCharsets.ISO_8859_1).contains(text);
    }
}
