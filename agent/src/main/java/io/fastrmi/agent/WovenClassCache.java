package io.fastrmi.agent;

import io.fastrmi.config.AtomicFiles;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * The RMI classes as the weaver left them, kept in the user's own folder ({@link BootstrapJar#cacheDirectory}),
 * so that a JVM whose JDK and agent were seen before takes them as they are: weaving costs each JVM
 * that starts RMI about half a second of CPU (Byte Buddy's classes, then the JIT compiling them),
 * which nine JVMs of a job on two cores feel. Nothing of Byte Buddy is named here, so a JVM that
 * finds every class here never loads it.
 *
 * <p>A kept class is used only when everything its woven bytes came from is the same, compared in
 * full, not by a hash: the class's own bytes (what the JVM hands the transformer) and the weaver's
 * {@link #identityOf identity} (the JDK, the advice classes and Byte Buddy, by the agent jar's
 * sizes and CRCs). The folder is trusted as the boot jar extracted to it is: no other user can
 * write it. A file that cannot be read, or reads wrong, is only a miss: the class is woven again.
 */
final class WovenClassCache {

    private static final int MAGIC = 0x46525756; // "FRWV"
    private static final int FORMAT = 1;
    /** What the woven bytes depend on in the agent jar: the advice, the weaver that names it, Byte Buddy. */
    private static final String[] WEAVER_ENTRIES = {"io/fastrmi/agent/advice/", "io/fastrmi/agent/AdviceWeaver",
        BootstrapJar.WEAVER_RESOURCE};

    private final Path directory;
    private final String identity;

    WovenClassCache(Path directory, String identity) {
        this.directory = directory;
        this.identity = identity;
    }

    /**
     * The cache for the agent in {@code agentJar} in {@code directory}; null when the agent runs from a
     * build directory (its classes change without a jar to tell) or its jar cannot be read.
     */
    static WovenClassCache forAgent(Path agentJar, Path directory) {
        String identity = identityOf(agentJar);
        return identity == null ? null : new WovenClassCache(directory, identity);
    }

    /**
     * What the weaving depends on besides the class: this JDK (whose class files the weaver reads
     * for the hierarchy) and, from the agent jar's directory, the name, size and CRC of every entry
     * that is the weaver, in name order. Null for a build directory or a jar that cannot be read.
     */
    static String identityOf(Path agentJar) {
        if (!Files.isRegularFile(agentJar)) {
            return null;
        }
        StringBuilder identity = new StringBuilder("format ").append(FORMAT);
        for (String property : new String[] {"java.home", "java.vm.name", "java.vm.version", "java.runtime.version"}) {
            identity.append('\n').append(property).append(' ').append(System.getProperty(property));
        }
        TreeMap<String, String> entries = new TreeMap<>();
        try (JarFile jar = new JarFile(agentJar.toFile(), false)) {
            for (Enumeration<? extends ZipEntry> all = jar.entries(); all.hasMoreElements();) {
                ZipEntry entry = all.nextElement();
                if (isWeaver(entry.getName())) {
                    if (entry.getSize() < 0 || entry.getCrc() < 0) {
                        return null; // a jar that does not say: nothing to compare
                    }
                    entries.put(entry.getName(), entry.getSize() + " " + Long.toHexString(entry.getCrc()));
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        if (!entries.containsKey(BootstrapJar.WEAVER_RESOURCE)) {
            return null;
        }
        for (Map.Entry<String, String> entry : entries.entrySet()) {
            identity.append('\n').append(entry.getKey()).append(' ').append(entry.getValue());
        }
        return identity.toString();
    }

    private static boolean isWeaver(String entry) {
        for (String prefix : WEAVER_ENTRIES) {
            if (entry.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** The woven bytes kept for {@code className} woven from {@code original} by this weaver; null when none are. */
    byte[] find(String className, byte[] original) {
        Path file = file(className, original);
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        byte[] content;
        try (FileInputStream in = new FileInputStream(file.toFile())) {
            content = in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
        return wovenIn(content, identity, original);
    }

    /**
     * The woven bytes in a kept file's {@code content} when it was woven from {@code original} by
     * the weaver {@code identity}; null when not, or when the content is not such a file.
     */
    static byte[] wovenIn(byte[] content, String identity, byte[] original) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(content))) {
            if (in.readInt() != MAGIC || !identity.equals(in.readUTF())) {
                return null;
            }
            byte[] keptOriginal = readBytes(in, content.length);
            if (!Arrays.equals(keptOriginal, original)) {
                return null;
            }
            byte[] woven = readBytes(in, content.length);
            return in.read() == -1 ? woven : null;
        } catch (IOException e) {
            return null; // short, or not UTF-8 where the identity should be
        }
    }

    private static byte[] readBytes(DataInputStream in, int most) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > most) {
            throw new IOException("a length of " + length + " in a file of " + most + " bytes");
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    /** Keeps {@code woven}, made from {@code original}, for the JVMs after this one; false when it cannot be written. */
    boolean keep(String className, byte[] original, byte[] woven) {
        try {
            AtomicFiles.write(file(className, original), content(identity, original, woven), "woven-");
            return true;
        } catch (IOException | RuntimeException e) {
            return false; // this JVM has its classes; the next weaves them again
        }
    }

    static byte[] content(String identity, byte[] original, byte[] woven) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(original.length + woven.length + identity.length() + 64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeUTF(identity);
            out.writeInt(original.length);
            out.write(original);
            out.writeInt(woven.length);
            out.write(woven);
        }
        return bytes.toByteArray();
    }

    /**
     * One file per class, weaver and original bytes: JVMs of two agent versions on one host do not
     * take turns rewriting it, nor do a JVM that loads the class and one that retransforms it (the
     * JVM hands a retransformation bytes it rebuilt, which differ from the class file's).
     */
    Path file(String className, byte[] original) {
        return directory.resolve("woven-" + className.replace('/', '.') + "-" + Integer.toHexString(identity.hashCode())
                + "-" + Long.toHexString(BootstrapJar.crc32(original)) + ".class-cache");
    }
}
