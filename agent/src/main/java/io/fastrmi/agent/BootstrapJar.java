package io.fastrmi.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.LinkOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/**
 * Files the agent jar carries and the JVM needs as files: the boot jar (the classes that code
 * inlined into the JDK's RMI classes calls must be visible to the boot class loader, so it is
 * appended to the boot class path) and the native library. Each is extracted once per content
 * (named by its size and CRC, in a directory of the user's own).
 */
final class BootstrapJar {

    static final String RESOURCE = "META-INF/fastrmi/fastrmi-boot.jar";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static Path cacheDirectory;
    private static boolean exiting;

    private BootstrapJar() {
    }

    static Path appendToBootClassPath(Instrumentation inst) throws IOException {
        Path jar = extract(readResource(RESOURCE), cacheDirectory(), "fastrmi-boot-", ".jar");
        inst.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
        return jar;
    }

    /** Reads a file inside the agent jar straight from it (the JDK shares its already-read directory). */
    static byte[] readResource(String resource) throws IOException {
        Path agentJar;
        try {
            agentJar = Path.of(BootstrapJar.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            throw new IOException("cannot locate the agent jar", e);
        }
        if (Files.isDirectory(agentJar)) {
            // Classes run from a build directory (tests): the files lie beside them.
            return Files.readAllBytes(agentJar.resolve(resource));
        }
        try (JarFile jar = new JarFile(agentJar.toFile(), false)) {
            ZipEntry entry = jar.getEntry(resource);
            if (entry == null) {
                throw new IOException(resource + " is missing from " + agentJar + " (a broken build?)");
            }
            try (InputStream in = jar.getInputStream(entry)) {
                return in.readAllBytes();
            }
        }
    }

    /**
     * Writes {@code content} to {@code dir/PREFIX-SIZE-CRC.SUFFIX} unless an identical file is there. The name only tells versions apart; that no other user can write the directory is what
     * makes a file found there safe to use. (A CRC, not a cryptographic hash: loading the security
     * providers would cost start-up time for no gain.)
     */
    static synchronized Path extract(byte[] content, Path dir, String prefix, String suffix) throws IOException {
        if (exiting) {
            // The private folder is being removed: a file written now would be left behind.
            throw new IOException("the JVM is exiting: " + prefix + suffix + " is not extracted");
        }
        long crc = crc32(content);
        Path target = dir.resolve(prefix + content.length + "-" + Long.toHexString(crc) + suffix);
        if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == content.length
                && crc32(Files.readAllBytes(target)) == crc) {
            return target;
        }
        Files.createDirectories(dir);
        Path temporary = Files.createTempFile(dir, prefix, ".tmp");
        try {
            Files.write(temporary, content);
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        return target;
    }

    /**
     * A directory only this user can write, {@code $TMPDIR/fastrmi-USER}; if that name is taken by
     * someone else or is writable by others, a fresh private directory instead (a jar that lands on
     * the boot class path must not be replaceable by another user): one per JVM, the same for every
     * caller, removed with what it holds when the JVM exits.
     */
    static synchronized Path cacheDirectory() throws IOException {
        if (cacheDirectory == null) {
            cacheDirectory = findCacheDirectory();
        }
        return cacheDirectory;
    }

    private static Path findCacheDirectory() throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path dir = tmp.resolve("fastrmi-" + System.getProperty("user.name"));
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            }
            if (isPrivate(dir)) {
                return dir;
            }
        } catch (IOException | UnsupportedOperationException e) {
            // fall through to a private directory of this JVM's own
        }
        Path own = Files.createTempDirectory(tmp, "fastrmi-"); // 0700
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (BootstrapJar.class) {
                exiting = true; // no extraction after this (a transport opening in the background)
            }
            deleteTree(own);
        }, "fastrmi-remove-private-folder"));
        return own;
    }

    /** Removes a folder of ours and everything in it, deepest first; what cannot go stays. */
    static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // in use or gone: the JVM is exiting, nothing more to do
                }
            });
        } catch (IOException e) {
            // the folder is gone already
        }
    }

    private static boolean isPrivate(Path dir) throws IOException {
        Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS);
        return Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName().equals(System.getProperty("user.name"))
                && !permissions.contains(PosixFilePermission.GROUP_WRITE)
                && !permissions.contains(PosixFilePermission.OTHERS_WRITE);
    }

    static long crc32(byte[] content) {
        CRC32 crc = new CRC32();
        crc.update(content);
        return crc.getValue();
    }
}
