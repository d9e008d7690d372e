package io.fastrmi.optrmi;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * optrmi's two rooms: the lean format ({@code io.fastrmi.optrmi..}), which knows nothing of how a
 * user configures FastRMI, and the config ({@code io.fastrmi.config}), which the transports read.
 * A lean class that used the config would make the wire format depend on a user's file. No
 * packages of the module form a cycle.
 */
class LeanRoomsTest {

    @Test
    void theLeanFormatSeesNothingOfConfig() {
        noClasses().that().resideInAPackage("io.fastrmi.optrmi..").should().dependOnClassesThat()
                .resideInAPackage("io.fastrmi.config..")
                .check(new ClassFileImporter().importPath(Path.of("target", "classes")));
    }

    @Test
    void noPackagesFormACycle() {
        slices().matching("io.fastrmi.(**)").should().beFreeOfCycles()
                .check(new ClassFileImporter().importPath(Path.of("target", "classes")));
    }
}
