package io.fastrmi.agent.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Makefile's copy of what {@link RmiLeanStreams} needs (for make bench-lean) says the same. */
class RmiLeanStreamsTest {

    /** The module's folder is where Maven runs its tests; the repository is above it. */
    private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();

    @Test
    void theMakefileGivesTheLeanBenchWhatTheseStreamsNeed() throws Exception {
        Matcher m = Pattern.compile("(?m)^LEAN_BENCH_RMI_OPENS :?= (.*)$").matcher(Files.readString(REPOSITORY.resolve("Makefile")));
        assertTrue(m.find(), "LEAN_BENCH_RMI_OPENS in the Makefile");
        assertEquals(RmiLeanStreams.JVM_ARGS, m.group(1).strip());
    }
}
