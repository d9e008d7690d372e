package io.fastrmi.netpipe;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * netpipe-java's packages depend on each other one way only: the bench's objects under its kernels,
 * the kernels under the running, reporting and comparing, and the commands on top.
 */
class PackagesTest {

    @Test
    void noPackagesFormACycle() {
        slices().matching("io.fastrmi.netpipe.(**)").should().beFreeOfCycles()
                .check(new ClassFileImporter().importPath(Path.of("target", "classes")));
    }
}
