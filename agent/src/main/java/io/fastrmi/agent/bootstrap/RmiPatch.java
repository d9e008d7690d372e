package io.fastrmi.agent.bootstrap;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * Where the classes of {@code agent/src/rmi-patch} are (the agent jar, or its build directory),
 * read on the first lean connection: the boot class path cannot read the agent jar's resources,
 * and reading them at start would cost every JVM.
 */
public final class RmiPatch {

    static final String FOLDER = "META-INF/fastrmi/rmi-patch/sun/rmi/transport/";
    private static volatile Path agentJar;

    private RmiPatch() {
    }

    /** At start: the agent jar (or classes directory) that carries the classes. */
    public static void carriedBy(Path jarOrDirectory) {
        agentJar = jarOrDirectory;
    }

    /** The bytes of the class {@code sun.rmi.transport.NAME}. */
    static byte[] classBytes(String name) throws IOException {
        Path carrier = agentJar;
        if (carrier == null) {
            throw new IOException("the agent did not say where its rmi-patch classes are");
        }
        String entry = FOLDER + name + ".class";
        if (Files.isDirectory(carrier)) {
            return Files.readAllBytes(carrier.resolve(entry));
        }
        try (JarFile jar = new JarFile(carrier.toFile())) {
            ZipEntry found = jar.getEntry(entry);
            if (found == null) {
                throw new IOException(carrier + " lacks " + entry);
            }
            try (InputStream in = jar.getInputStream(found)) {
                return in.readAllBytes();
            }
        }
    }
}
