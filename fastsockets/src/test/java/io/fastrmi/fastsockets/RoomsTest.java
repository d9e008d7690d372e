package io.fastrmi.fastsockets;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * fastsockets' rooms, bottom to top: transport (with the native bindings: nativelib, jni, and ffm in
 * the jar's Java 22 part); handshake; jvm (scope = jvm's sockets); rmi (RMI's sockets). Under them all,
 * config ({@code io.fastrmi.config}, in optrmi, which cannot see fastsockets at all). Nothing in a
 * lower room uses a higher one, and no two rooms use each other. Checked on the compiled classes,
 * the Java 22 ones included.
 */
class RoomsTest {

    private static final String BASE = "io.fastrmi.fastsockets";

    private static JavaClasses classes() {
        List<Path> roots = new ArrayList<>(List.of(Path.of("target", "classes")));
        Path java22 = Path.of("target", "classes", "META-INF", "versions", "22");
        if (Files.isDirectory(java22)) {
            roots.add(java22);
        }
        return new ClassFileImporter().importPaths(roots);
    }

    @Test
    void aLowerRoomNeverUsesAHigherOne() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("transport").definedBy(BASE + ".transport..", BASE + ".nativelib..", BASE + ".ffm..", BASE + ".jni..")
                .layer("handshake").definedBy(BASE + ".handshake..")
                .layer("jvm").definedBy(BASE + ".jvm..")
                .layer("rmi").definedBy(BASE + ".rmi..")
                .whereLayer("rmi").mayNotBeAccessedByAnyLayer()
                .whereLayer("jvm").mayOnlyBeAccessedByLayers("rmi")
                .whereLayer("handshake").mayOnlyBeAccessedByLayers("jvm", "rmi")
                .whereLayer("transport").mayOnlyBeAccessedByLayers("handshake", "jvm", "rmi")
                .check(classes());
    }

    @Test
    void everyClassLivesInARoomAndNoRoomsFormACycle() {
        // Every package under fastsockets, so that a new sibling package cannot escape the rules above.
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes().that().resideInAPackage(BASE + "..").should()
                .resideInAnyPackage(BASE + ".transport..", BASE + ".nativelib..", BASE + ".ffm..", BASE + ".jni..",
                        BASE + ".handshake..", BASE + ".jvm..", BASE + ".rmi..")
                .check(classes());
        slices().matching(BASE + ".(*)..").should().beFreeOfCycles().check(classes());
    }
}
