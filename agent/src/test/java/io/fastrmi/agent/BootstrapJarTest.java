package io.fastrmi.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BootstrapJarTest {

    @TempDir
    Path dir;

    @Test
    void extractsOncePerContent() throws Exception {
        byte[] content = "jar one".getBytes(StandardCharsets.UTF_8);
        Path first = BootstrapJar.extract(content, dir, "fastrmi-boot-", ".jar");
        assertArrayEquals(content, Files.readAllBytes(first));
        long modified = Files.getLastModifiedTime(first).toMillis();
        Files.setLastModifiedTime(first, java.nio.file.attribute.FileTime.fromMillis(modified - 60_000));
        Path again = BootstrapJar.extract(content, dir, "fastrmi-boot-", ".jar");
        assertEquals(first, again);
        assertEquals(modified - 60_000, Files.getLastModifiedTime(again).toMillis(), "an identical file is reused");

        Path other = BootstrapJar.extract("jar two".getBytes(StandardCharsets.UTF_8), dir, "fastrmi-boot-", ".jar");
        assertNotEquals(first, other);
    }

    @Test
    void aDamagedFileIsReplaced() throws Exception {
        byte[] content = "the real jar".getBytes(StandardCharsets.UTF_8);
        Path jar = BootstrapJar.extract(content, dir, "fastrmi-boot-", ".jar");
        Files.write(jar, "the real jaR".getBytes(StandardCharsets.UTF_8));
        assertEquals(jar, BootstrapJar.extract(content, dir, "fastrmi-boot-", ".jar"));
        assertArrayEquals(content, Files.readAllBytes(jar));
        try (var files = Files.list(dir)) {
            assertEquals(1, files.count(), "no temporary file is left behind");
        }
    }
}
