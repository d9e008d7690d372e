package io.fastrmi.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.jar.JarOutputStream;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WovenClassCacheTest {

    private static final String CLASS = "sun/rmi/server/UnicastRef";
    private static final byte[] ORIGINAL = "the JDK's class".getBytes(StandardCharsets.UTF_8);
    private static final byte[] WOVEN = "the class with its advice".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @Test
    void aKeptClassIsFoundForTheSameOriginalAndWeaverOnly() throws IOException {
        WovenClassCache cache = new WovenClassCache(dir, "weaver one");
        assertNull(cache.find(CLASS, ORIGINAL), "nothing kept yet");
        assertTrue(cache.keep(CLASS, ORIGINAL, WOVEN));
        assertArrayEquals(WOVEN, cache.find(CLASS, ORIGINAL));
        assertArrayEquals(WOVEN, new WovenClassCache(dir, "weaver one").find(CLASS, ORIGINAL), "another JVM's cache");

        byte[] otherJdk = ORIGINAL.clone();
        otherJdk[otherJdk.length - 1] ^= 1;
        assertNull(cache.find(CLASS, otherJdk), "another JDK's class");
        assertNull(cache.find("sun/rmi/server/UnicastServerRef", ORIGINAL), "another class");
        assertNull(new WovenClassCache(dir, "weaver two").find(CLASS, ORIGINAL), "another weaver");
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file is left behind");
        }
    }

    /** A class as loaded and as a retransformation rebuilds it: both kept, neither rewriting the other. */
    @Test
    void twoOriginalsOfOneClassAreKeptApart() throws IOException {
        WovenClassCache cache = new WovenClassCache(dir, "weaver one");
        byte[] rebuilt = "the JDK's class, rebuilt".getBytes(StandardCharsets.UTF_8);
        byte[] wovenFromRebuilt = "woven from the rebuilt bytes".getBytes(StandardCharsets.UTF_8);
        assertTrue(cache.keep(CLASS, ORIGINAL, WOVEN));
        assertTrue(cache.keep(CLASS, rebuilt, wovenFromRebuilt));
        assertArrayEquals(WOVEN, cache.find(CLASS, ORIGINAL));
        assertArrayEquals(wovenFromRebuilt, cache.find(CLASS, rebuilt));
        try (var files = Files.list(dir)) {
            assertEquals(2, files.count());
        }
    }

    @Test
    void twoWeaversKeepTheirClassesApart() {
        WovenClassCache one = new WovenClassCache(dir, "weaver one");
        WovenClassCache two = new WovenClassCache(dir, "weaver two");
        byte[] wovenByTwo = "woven by two".getBytes(StandardCharsets.UTF_8);
        assertTrue(one.keep(CLASS, ORIGINAL, WOVEN));
        assertTrue(two.keep(CLASS, ORIGINAL, wovenByTwo));
        assertArrayEquals(WOVEN, one.find(CLASS, ORIGINAL));
        assertArrayEquals(wovenByTwo, two.find(CLASS, ORIGINAL));
    }

    /** A file cut short or changed anywhere gives the woven bytes it was made with, or nothing: never others, never an exception. */
    @Test
    void aDamagedFileIsAMiss() throws IOException {
        byte[] content = WovenClassCache.content("weaver one", ORIGINAL, WOVEN);
        for (int length = 0; length < content.length; length++) {
            assertNull(WovenClassCache.wovenIn(Arrays.copyOf(content, length), "weaver one", ORIGINAL), "cut to " + length);
        }
        byte[] longer = Arrays.copyOf(content, content.length + 1);
        assertNull(WovenClassCache.wovenIn(longer, "weaver one", ORIGINAL), "a byte too many");
        Random random = new Random(42);
        int wovenAt = content.length - WOVEN.length;
        for (int i = 0; i < 20_000; i++) {
            byte[] damaged = content.clone();
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                damaged[random.nextInt(damaged.length)] ^= (byte) (1 + random.nextInt(255));
            }
            byte[] woven = WovenClassCache.wovenIn(damaged, "weaver one", ORIGINAL);
            if (woven != null) {
                // Only a change inside the woven bytes themselves goes unseen (the JVM verifies a class it defines).
                assertArrayEquals(Arrays.copyOf(content, wovenAt), Arrays.copyOf(damaged, wovenAt), "a damaged header read as whole");
                assertArrayEquals(Arrays.copyOfRange(damaged, wovenAt, damaged.length), woven);
            }
        }
        Path file = new WovenClassCache(dir, "weaver one").file(CLASS, ORIGINAL);
        Files.write(file, new byte[] {1, 2, 3});
        assertNull(new WovenClassCache(dir, "weaver one").find(CLASS, ORIGINAL), "garbage in the file");
    }

    @Test
    void aFolderThatCannotBeWrittenKeepsNothing() throws IOException {
        Path notAFolder = Files.write(dir.resolve("file"), new byte[0]);
        WovenClassCache cache = new WovenClassCache(notAFolder, "weaver one");
        assertFalse(cache.keep(CLASS, ORIGINAL, WOVEN));
        assertNull(cache.find(CLASS, ORIGINAL));
    }

    @Test
    void theWeaversIdentityIsItsEntriesAndTheJdk() throws IOException {
        Map<String, String> entries = new TreeMap<>(Map.of(
                "io/fastrmi/agent/advice/ClientInvokeAdvice.class", "advice",
                "io/fastrmi/agent/AdviceWeaver.class", "weaver",
                "io/fastrmi/agent/AdviceWeaver$Hook.class", "hook",
                BootstrapJar.WEAVER_RESOURCE, "byte buddy",
                "io/fastrmi/agent/FastRmiAgent.class", "premain"));
        String identity = WovenClassCache.identityOf(jar("same.jar", entries));
        assertNotNull(identity);
        assertTrue(identity.contains(System.getProperty("java.runtime.version")), identity);
        assertTrue(identity.contains("io/fastrmi/agent/AdviceWeaver$Hook.class"), identity);
        assertFalse(identity.contains("FastRmiAgent"), "premain's classes do not weave: " + identity);

        entries.put("io/fastrmi/agent/FastRmiAgent.class", "premain, rebuilt");
        assertEquals(identity, WovenClassCache.identityOf(jar("rebuilt.jar", entries)), "only what weaves counts");
        for (String weaving : new String[] {"io/fastrmi/agent/advice/ClientInvokeAdvice.class",
            "io/fastrmi/agent/AdviceWeaver$Hook.class", BootstrapJar.WEAVER_RESOURCE}) {
            Map<String, String> changed = new TreeMap<>(entries);
            changed.put(weaving, changed.get(weaving) + "!");
            assertNotEquals(identity, WovenClassCache.identityOf(jar("changed.jar", changed)), weaving);
        }
        Map<String, String> noByteBuddy = new TreeMap<>(entries);
        noByteBuddy.remove(BootstrapJar.WEAVER_RESOURCE);
        assertNull(WovenClassCache.identityOf(jar("partial.jar", noByteBuddy)), "a jar without the weaver");
        assertNull(WovenClassCache.identityOf(dir), "a build directory");
        assertNull(WovenClassCache.forAgent(dir, dir));
    }

    private Path jar(String name, Map<String, String> entries) throws IOException {
        Path jar = dir.resolve(name);
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            for (Map.Entry<String, String> entry : entries.entrySet()) {
                out.putNextEntry(new ZipEntry(entry.getKey()));
                out.write(entry.getValue().getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
        }
        return jar;
    }
}
