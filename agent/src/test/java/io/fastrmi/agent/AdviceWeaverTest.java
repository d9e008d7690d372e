package io.fastrmi.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.method.MethodList;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Weaves the running JDK's own RMI classes, as the agent does, without loading them. */
class AdviceWeaverTest {

    private final AdviceWeaver weaver = new AdviceWeaver();

    @Test
    void theTransformerMatchesExactlyTheWovenClasses() {
        assertEquals(RmiInstrumentation.TARGETS, AdviceWeaver.HOOKS.keySet());
    }

    @ParameterizedTest
    @CsvSource({"sun/rmi/server/UnicastRef, io/fastrmi/agent/bootstrap/RmiCalls",
        "sun/rmi/server/UnicastServerRef, io/fastrmi/agent/bootstrap/RmiCalls",
        "sun/rmi/transport/StreamRemoteCall, io/fastrmi/agent/bootstrap/RmiCalls",
        "sun/rmi/transport/tcp/TCPChannel, io/fastrmi/agent/bootstrap/LeanStreams",
        "sun/rmi/transport/tcp/TCPConnection, io/fastrmi/fastsockets/rmi/DgcConnections",
        "sun/rmi/transport/tcp/TCPEndpoint, io/fastrmi/fastsockets/rmi/FastRmiSocketFactory"})
    void eachTargetIsWovenWithCallsIntoTheRuntime(String className, String runtime) throws Exception {
        byte[] original = jdkClassFile(className);
        byte[] woven = weaver.weave(className, original);
        assertFalse(Arrays.equals(original, woven));
        assertFalse(contains(original, runtime));
        assertTrue(contains(woven, runtime), "the woven class calls " + runtime + " on the boot class path");
        assertFalse(contains(woven, "io/fastrmi/agent/advice"), "advice is inlined, never called");
    }

    /** Each hook finds its methods in this JDK by name and parameter types: one each, two for the call's end. */
    @Test
    void eachHookMatchesItsMethodsByTheirExactSignature() throws Exception {
        for (Map.Entry<String, List<AdviceWeaver.Hook>> target : AdviceWeaver.HOOKS.entrySet()) {
            String name = target.getKey().replace('/', '.');
            TypePool pool = pool(name, jdkClassFile(target.getKey()));
            MethodList<MethodDescription.InDefinedShape> methods = pool.describe(name).resolve().getDeclaredMethods();
            for (AdviceWeaver.Hook hook : target.getValue()) {
                int expected = hook.advice().getSimpleName().equals("ClientCallEndAdvice") ? 2 : 1;
                assertEquals(expected, methods.filter(hook.methods()).size(), hook.advice().getSimpleName() + " in " + name);
            }
        }
    }

    @Test
    void aMethodOfTheRightNameAndCountButOtherTypesIsNotMatched() throws Exception {
        String name = "sun.rmi.server.UnicastServerRef";
        TypePool pool = pool(name, jdkClassFile("sun/rmi/server/UnicastServerRef"));
        MethodList<MethodDescription.InDefinedShape> methods = pool.describe(name).resolve().getDeclaredMethods();
        assertEquals(1, methods.filter(AdviceWeaver.method("logCall", "java.rmi.Remote", "java.lang.Object")).size());
        assertEquals(0, methods.filter(AdviceWeaver.method("logCall", "java.rmi.Remote", "java.lang.String")).size());
    }

    @Test
    void anUnknownClassIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> weaver.weave("java/lang/Object", new byte[0]));
    }

    /** Types described from their class files, as the weaver does: nothing is loaded. */
    private static TypePool pool(String name, byte[] classFile) {
        return TypePool.Default.of(new ClassFileLocator.Compound(ClassFileLocator.Simple.of(name, classFile),
                ClassFileLocator.ForClassLoader.ofBootLoader()));
    }

    static byte[] jdkClassFile(String className) throws Exception {
        Module module = className.startsWith("java/io/") ? Object.class.getModule()
                : ModuleLayer.boot().findModule("java.rmi").orElseThrow();
        try (InputStream in = module.getResourceAsStream(className + ".class")) {
            assertNotNull(in, className);
            return in.readAllBytes();
        }
    }

    private static boolean contains(byte[] classFile, String text) {
        return new String(classFile, StandardCharsets.ISO_8859_1).contains(text);
    }
}
