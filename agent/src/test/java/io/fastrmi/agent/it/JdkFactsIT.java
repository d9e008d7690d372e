package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.facts.MarshalProtocolFact;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Facts about the JDK that the agent's design rests on, checked on the real JDKs so that a JDK that
 * changes them fails here first.
 */
class JdkFactsIT {

    /** The lean format must know what RMI writes today: MarshalOutputStream uses PROTOCOL_VERSION_1. */
    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void marshalOutputStreamWritesProtocolVersion1(int feature) {
        List<String> output = runToEnd(JvmLauncher.on(Jdk.of(feature)).name("marshal-protocol")
                .jvmArgs("--add-exports", "java.rmi/sun.rmi.server=ALL-UNNAMED")
                .classpathOf(MarshalProtocolFact.class).main(MarshalProtocolFact.class));
        assertEquals(List.of("MarshalOutputStream protocol 1", "ObjectOutputStream protocol 2"), output);
    }

    /**
     * Multi-release entries are ignored on the boot class path: the same jar gives the Java 22
     * version of a class on the class path and the base version on the boot class path. Hence the
     * agent's FFM (22+) classes load through the system class loader, not from the boot jar.
     */
    @Test
    void multiReleaseEntriesAreIgnoredOnTheBootClassPath() throws Exception {
        Path dir = ItSupport.directory("multi-release");
        Path jar = multiReleaseJar(dir);
        Jdk jdk = Jdk.of(25);
        Path empty = Files.createDirectories(dir.resolve("empty"));
        assertEquals(List.of("22"), runToEnd(JvmLauncher.on(jdk).name("mr-classpath").classpath(jar).main("MrFact")));
        assertEquals(List.of("base"), runToEnd(JvmLauncher.on(jdk).name("mr-bootclasspath")
                // -Xshare:off: else CDS warns that the boot class path was appended, an extra output line.
                .jvmArgs("-Xbootclasspath/a:" + jar, "-Xshare:off").classpath(empty).main("MrFact")));
    }

    private static Path multiReleaseJar(Path dir) throws Exception {
        Path base = compile(dir.resolve("base"), "base", 17);
        Path v22 = compile(dir.resolve("v22"), "22", 22);
        Path jar = dir.resolve("mr.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MULTI_RELEASE, "true");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.putNextEntry(new JarEntry("MrFact.class"));
            out.write(Files.readAllBytes(base.resolve("MrFact.class")));
            out.putNextEntry(new JarEntry("META-INF/versions/22/MrFact.class"));
            out.write(Files.readAllBytes(v22.resolve("MrFact.class")));
        }
        return jar;
    }

    private static Path compile(Path dir, String answer, int release) throws Exception {
        Files.createDirectories(dir);
        Path source = dir.resolve("MrFact.java");
        Files.writeString(source, "public class MrFact { public static void main(String[] a) { System.out.println(\""
                + answer + "\"); } }", StandardCharsets.UTF_8);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "--release", String.valueOf(release), "-d", dir.toString(),
                source.toString()));
        return dir;
    }

    private static List<String> runToEnd(JvmLauncher launcher) {
        try (ManagedJvm jvm = launcher.start()) {
            int exit = jvm.awaitExit(Duration.ofMinutes(1));
            assertTrue(exit == 0, () -> jvm.failure("exit " + exit).getMessage());
            return jvm.output();
        }
    }
}
