package io.fastrmi.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JdkTest {

    @Test
    void featureVersions() {
        assertEquals(17, Jdk.featureOf("17.0.15"));
        assertEquals(25, Jdk.featureOf("25"));
        assertEquals(22, Jdk.featureOf("22-ea"));
        assertEquals(8, Jdk.featureOf("1.8.0_402"));
    }

    @Test
    void bothTestedJdksAreFound() {
        assertEquals(17, Jdk.of(17).feature());
        assertEquals(25, Jdk.of(25).feature());
        assertTrue(Files.isExecutable(Jdk.of(17).java()));
    }

    @Test
    void aDirectoryWithoutReleaseFileIsNoJdk(@TempDir Path dir) {
        assertTrue(Jdk.at(dir).isEmpty());
        assertThrows(IllegalStateException.class, () -> Jdk.of(3));
    }
}
