package io.fastrmi.agent;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What the agent (the advice, the bootstrap helpers, startup and {@code doctor}) may use of
 * fastsockets: its rooms' front doors only, the classes each room offers the outside. Everything
 * else in fastsockets may change without the agent noticing.
 */
class AgentRoomsTest {

    private static final Set<String> FRONT_DOORS = Set.of(
            "io.fastrmi.fastsockets.rmi.FastRmiSocketFactory",
            "io.fastrmi.fastsockets.rmi.FastSocket",
            "io.fastrmi.fastsockets.rmi.DgcConnections",
            "io.fastrmi.fastsockets.rmi.PooledConnections",
            "io.fastrmi.fastsockets.jvm.JvmScope",
            "io.fastrmi.fastsockets.handshake.Installation",
            "io.fastrmi.fastsockets.handshake.ClientHandshake",
            "io.fastrmi.fastsockets.handshake.Handshake",
            "io.fastrmi.fastsockets.handshake.HandshakeException",
            "io.fastrmi.fastsockets.handshake.Privileged",
            "io.fastrmi.fastsockets.handshake.JfrEvents",
            "io.fastrmi.fastsockets.transport.NativeTransports",
            "io.fastrmi.fastsockets.transport.TcpWaits",
            "io.fastrmi.fastsockets.nativelib.NativeLibraries",
            "io.fastrmi.fastsockets.nativelib.NativeLibrary");

    @Test
    void theAgentUsesFastsocketsOnlyThroughItsFrontDoors() {
        DescribedPredicate<JavaClass> behindTheDoors = new DescribedPredicate<>("fastsockets classes that are no front door") {
            @Override
            public boolean test(JavaClass type) {
                String name = type.getName();
                int nested = name.indexOf('$');
                String outer = nested < 0 ? name : name.substring(0, nested);
                return name.startsWith("io.fastrmi.fastsockets.") && !FRONT_DOORS.contains(outer);
            }
        };
        noClasses().that().resideInAPackage("io.fastrmi.agent..").should().dependOnClassesThat(behindTheDoors)
                .check(new ClassFileImporter().importPath(Path.of("target", "classes")));
    }

    @Test
    void noPackagesOfTheAgentFormACycle() {
        slices().matching("io.fastrmi.agent.(**)").should().beFreeOfCycles()
                .check(new ClassFileImporter().importPath(Path.of("target", "classes")));
    }
}
