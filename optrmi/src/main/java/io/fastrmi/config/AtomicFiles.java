package io.fastrmi.config;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Files that other processes read while they may be written: written to a temporary file beside
 * the target, then moved over it, so that a reader sees the old content or the new, never a part.
 */
public final class AtomicFiles {

    private AtomicFiles() {
    }

    /** Writes {@code content} to {@code target} (a temporary file named {@code prefix}... first). */
    public static void write(Path target, byte[] content, String prefix) throws IOException {
        Path temporary = Files.createTempFile(target.toAbsolutePath().getParent(), prefix, ".tmp");
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
    }
}
