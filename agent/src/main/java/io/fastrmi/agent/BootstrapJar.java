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
import java.util.Set;
import java.util.jar.JarFile;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/**
 * The classes that code inlined into the JDK's RMI classes calls must be visible to the boot class
 * loader. They ship as a jar inside the agent jar; this extracts it once per content (named by its
 * hash, in a directory of the user's own) and appends it to the boot class path.
 */
final class BootstrapJar {

    static final String RESOURCE = "META-INF/fastrmi/fastrmi-boot.jar";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    private BootstrapJar() {
    }

    static Path appendToBootClassPath(Instrumentation inst) throws IOException {
        Path jar = extract(readResource(), cacheDirectory());
        inst.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
        return jar;
    }

    /** Reads the nested jar straight from the agent jar (the JDK shares its already-read directory). */
    static byte[] readResource() throws IOException {
        Path agentJar;
        try {
            agentJar = Path.of(BootstrapJar.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            throw new IOException("cannot locate the agent jar", e);
        }
        try (JarFile jar = new JarFile(agentJar.toFile(), false)) {
            ZipEntry entry = jar.getEntry(RESOURCE);
            if (entry == null) {
                throw new IOException(RESOURCE + " is missing from " + agentJar + " (a broken build?)");
            }
            try (InputStream in = jar.getInputStream(entry)) {
                return in.readAllBytes();
            }
        }
    }

    /**
     * Writes {@code content} to {@code dir/fastrmi-boot-SIZE-CRC.jar} unless an identical file is
     * there. The name only tells versions apart; that no other user can write the directory is what
     * makes a file found there safe to use. (A CRC, not a cryptographic hash: loading the security
     * providers would cost start-up time for no gain.)
     */
    static Path extract(byte[] content, Path dir) throws IOException {
        long crc = crc32(content);
        Path target = dir.resolve("fastrmi-boot-" + content.length + "-" + Long.toHexString(crc) + ".jar");
        if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) && Files.size(target) == content.length
                && crc32(Files.readAllBytes(target)) == crc) {
            return target;
        }
        Files.createDirectories(dir);
        Path temporary = Files.createTempFile(dir, "fastrmi-boot-", ".tmp");
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
     * the boot class path must not be replaceable by another user).
     */
    static Path cacheDirectory() throws IOException {
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
        Path own = Files.createTempDirectory(tmp, "fastrmi-");
        own.toFile().deleteOnExit();
        return own;
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
