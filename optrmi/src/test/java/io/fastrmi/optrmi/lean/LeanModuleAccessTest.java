package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The copies of {@link LeanModuleAccess} that cannot name it (the Makefile, optrmi's pom) say the same. */
class LeanModuleAccessTest {

    /** The module's folder is where Maven runs its tests; the repository is above it. */
    private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();

    @Test
    void theMakefilesFlagsForTheLeanBenchAreTheLeanFormatsOwn() throws Exception {
        Matcher m = Pattern.compile("(?m)^LEAN_BENCH_OPENS :?= (.*)$").matcher(Files.readString(REPOSITORY.resolve("Makefile")));
        assertTrue(m.find(), "LEAN_BENCH_OPENS in the Makefile");
        assertEquals(LeanModuleAccess.jvmArgs(), tokens(m.group(1)));
    }

    @Test
    void optrmisTestJvmsGetTheLeanFormatsFlags() throws Exception {
        Matcher m = Pattern.compile("<argLine>([^<]*)</argLine>").matcher(Files.readString(REPOSITORY.resolve("optrmi/pom.xml")));
        assertTrue(m.find(), "surefire's argLine in optrmi/pom.xml");
        assertEquals(LeanModuleAccess.jvmArgs(), tokens(m.group(1)));
        // And they took effect in this very JVM.
        Module unnamed = LeanModuleAccessTest.class.getModule();
        assertTrue(Object.class.getModule().isOpen(LeanModuleAccess.OPEN_PACKAGE, unnamed));
        assertTrue(Object.class.getModule().isExported(LeanModuleAccess.EXPORTED_PACKAGE, unnamed));
    }

    private static List<String> tokens(String flags) {
        return Arrays.asList(flags.trim().split("\\s+"));
    }
}
