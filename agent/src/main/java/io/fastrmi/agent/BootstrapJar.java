package io.fastrmi.agent;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.net.URISyntaxException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
    static final String WEAVER_RESOURCE = "META-INF/fastrmi/fastrmi-weaver.jar";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static Path cacheDirectory;
    private static boolean exiting;

    private BootstrapJar() {
    }

    static Path appendToBootClassPath(Instrumentation inst) throws IOException {
        Path jar = extract(carried(RESOURCE), cacheDirectory(), "fastrmi-boot-", ".jar");
        inst.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
        return jar;
    }

    /**
     * Byte Buddy (relocated), which only the weaver uses, goes on the system class path when RMI
     * first loads a class the agent instruments: kept apart in a nested jar, its 3,091 classes are
     * not in the agent jar's directory, which every JVM with the agent reads at start. (Run from a
     * build directory, it is on the class path already.)
     */
    static void appendWeaverToSystemClassPath(Instrumentation inst) throws IOException {
        if (Files.isDirectory(agentJar())) {
            return;
        }
        Path jar = extract(carried(WEAVER_RESOURCE), cacheDirectory(), "fastrmi-weaver-", ".jar");
        inst.appendToSystemClassLoaderSearch(new JarFile(jar.toFile()));
    }

    /** The agent jar, or the classes directory when run from a build. */
    static Path agentJar() throws IOException {
        try {
            return Path.of(BootstrapJar.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            throw new IOException("cannot locate the agent jar", e);
        }
    }

    /**
     * A file the agent jar carries: its size and CRC as the jar's directory gives them, its bytes
     * read (inflated) only when they must be written out; or bytes in hand.
     */
    record Carried(long size, long crc, Path agentJar, String resource, byte[] bytes) {
        static Carried of(byte[] bytes) {
            return new Carried(bytes.length, crc32(bytes), null, null, bytes);
        }

        byte[] content() throws IOException {
            return bytes != null ? bytes : read(agentJar, resource);
        }
    }

    /** A file inside the agent jar (the JDK shares the jar's already-read directory). */
    static Carried carried(String resource) throws IOException {
        Path agentJar = agentJar();
        if (Files.isDirectory(agentJar)) {
            // Classes run from a build directory (tests): the files lie beside them.
            return Carried.of(Files.readAllBytes(agentJar.resolve(resource)));
        }
        try (JarFile jar = new JarFile(agentJar.toFile(), false)) {
            ZipEntry entry = entry(jar, agentJar, resource);
            return new Carried(entry.getSize(), entry.getCrc(), agentJar, resource, null);
        }
    }

    private static byte[] read(Path agentJar, String resource) throws IOException {
        try (JarFile jar = new JarFile(agentJar.toFile(), false);
                InputStream in = jar.getInputStream(entry(jar, agentJar, resource))) {
            return in.readAllBytes();
        }
    }

    /** The entry, with the size and CRC its directory gives (a jar the build wrote has both). */
    private static ZipEntry entry(JarFile jar, Path agentJar, String resource) throws IOException {
        ZipEntry entry = jar.getEntry(resource);
        if (entry == null || entry.getSize() < 0 || entry.getCrc() < 0) {
            throw new IOException(resource + " is missing from " + agentJar + " (a broken build?)");
        }
        return entry;
    }

    static Path extract(byte[] content, Path dir, String prefix, String suffix) throws IOException {
        return extract(Carried.of(content), dir, prefix, suffix);
    }

    /**
     * Writes {@code file} to {@code dir/PREFIX-SIZE-CRC.SUFFIX} unless an identical file is there. The
     * name only tells versions apart; that no other user can write the directory is what makes a
     * file found there safe to use. (A CRC, not a cryptographic hash: loading the security providers
     * would cost start-up time for no gain.)
     */
    static synchronized Path extract(Carried file, Path dir, String prefix, String suffix) throws IOException {
        if (exiting) {
            // The private folder is being removed: a file written now would be left behind.
            throw new IOException("the JVM is exiting: " + prefix + suffix + " is not extracted");
        }
        Path target = dir.resolve(prefix + file.size() + "-" + Long.toHexString(file.crc()) + suffix);
        if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == file.size()
                && crc32(readAll(target)) == file.crc()) {
            return target;
        }
        byte[] content = file.content();
        if (content.length != file.size() || crc32(content) != file.crc()) {
            throw new IOException(target.getFileName() + ": the agent jar's copy is damaged (size or CRC differs)");
        }
        Files.createDirectories(dir);
        // fastsockets' AtomicFiles does the same, but this runs before FastRMI's runtime may load (it
        // writes the jar that carries it): the one copy that cannot share it.
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

    /** Files.readAllBytes would load the NIO channel classes on every JVM's start path; java.io's are loaded already. */
    private static byte[] readAll(Path file) throws IOException {
        try (FileInputStream in = new FileInputStream(file.toFile())) {
            return in.readAllBytes();
        }
    }

    static long crc32(byte[] content) {
        CRC32 crc = new CRC32();
        crc.update(content);
        return crc.getValue();
    }
}
