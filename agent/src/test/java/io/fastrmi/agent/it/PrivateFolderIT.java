package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fastrmi.agent.nativeit.GreetingMain;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * When {@code $TMPDIR/fastrmi-$USER} belongs to someone else, an agent JVM (scope = jvm: boot jar,
 * native library and listener entries all want the folder) makes one private folder of its own,
 * 0700, and removes it when it exits.
 */
class PrivateFolderIT {

    @Test
    void aTakenSharedFolderGivesOnePrivateFolderRemovedAtExit() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root to give a folder to another user");
        Path dir = ItSupport.directory("private-folder");
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Path taken = Files.createDirectory(tmp.resolve("fastrmi-root"));
        UserPrincipal nobody = tmp.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        Files.setOwner(taken, nobody);
        Path config = dir.resolve("fastrmi.conf");
        Files.write(config, List.of("scope = jvm", "[host local]", "optimize = on", "transports = ucx:shm, tcp"));

        try (ManagedJvm server = JvmLauncher.on(Jdk.of(25)).name("server").agent(ItSupport.agentJar(), "config=" + config)
                .jvmArgs("--enable-native-access=ALL-UNNAMED", "-Djava.io.tmpdir=" + tmp)
                .classpathOf(GreetingMain.class).main(GreetingMain.class).args("server").start()) {
            server.awaitLine(Pattern.compile("^READY port=(\\d+)$"), Duration.ofSeconds(60));
            List<Path> own = ownFolders(tmp);
            assertEquals(1, own.size(), own::toString);
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(own.get(0))));
            server.stop(Duration.ofSeconds(30)); // an orderly exit: shutdown hooks run
        }
        assertEquals(List.of(), ownFolders(tmp));
        assertEquals(List.of(), listing(taken), "nothing written into the other user's folder");
    }

    private static List<Path> ownFolders(Path tmp) throws Exception {
        return listing(tmp).stream().filter(p -> !p.getFileName().toString().equals("fastrmi-root")).toList();
    }

    private static List<Path> listing(Path folder) throws Exception {
        try (Stream<Path> entries = Files.list(folder)) {
            return entries.toList();
        }
    }
}
