package io.fastrmi.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.sample.SampleServer;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The harness itself, on real JVMs of both JDKs. */
class JvmLauncherTest {

    /** Prints its arguments and a system property, then waits for "exit N" on stdin or sleeps forever. */
    public static final class Echo {
        public static void main(String[] args) throws Exception {
            System.out.println("args=" + String.join(",", args) + " prop=" + System.getProperty("echo.prop"));
            System.out.println("java=" + Runtime.version().feature());
            if (args.length > 0 && args[0].equals("sleep")) {
                Thread.sleep(600_000);
            }
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
            System.exit(line == null ? 3 : Integer.parseInt(line.substring("exit ".length())));
        }
    }

    @ParameterizedTest(name = "JDK {0}")
    @ValueSource(ints = {17, 25})
    void runsTheChosenJdkWithFlagsAndArgumentsAndCapturesOutput(int feature) {
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(feature)).name("echo").jvmArgs("-Decho.prop=x")
                .classpathOf(Echo.class).main(Echo.class).args("a", "b").start()) {
            assertEquals("a,b", jvm.awaitLine(Pattern.compile("^args=(\\S*) prop=x$"), Duration.ofSeconds(30)).group(1));
            jvm.awaitLine(Pattern.compile("^java=" + feature + "$"), Duration.ofSeconds(30));
            jvm.send("exit 7");
            assertEquals(7, jvm.awaitExit(Duration.ofSeconds(30)));
            assertEquals(List.of("args=a,b prop=x", "java=" + feature), jvm.output());
        }
    }

    @Test
    void aLineThatNeverComesFailsWithTheOutput() {
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(25)).name("quiet").classpathOf(Echo.class).main(Echo.class)
                .args("sleep").start()) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> jvm.awaitLine(Pattern.compile("never"), Duration.ofMillis(1500)));
            assertTrue(e.getMessage().contains("no line matching /never/"), e.getMessage());
            assertTrue(e.getMessage().contains("| args=sleep"), e.getMessage());
        }
    }

    @Test
    void aJvmThatExitsBeforeTheLineFailsAtOnce() {
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(25)).name("bad").main("no.such.Main").start()) {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> jvm.awaitLine(Pattern.compile("never"), Duration.ofMinutes(1)));
            assertTrue(e.getMessage().contains("exited (code 1)"), e.getMessage());
            assertTrue(e.getMessage().contains("no.such.Main"), e.getMessage());
        }
    }

    @Test
    void theTimeLimitKillsAJvm() {
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(25)).name("sleeper").classpathOf(Echo.class).main(Echo.class)
                .args("sleep").timeLimit(Duration.ofSeconds(2)).start()) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> jvm.awaitExit(Duration.ofMinutes(1)));
            assertTrue(e.getMessage().contains("killed at its time limit"), e.getMessage());
            assertFalse(jvm.isAlive());
        }
    }

    @Test
    void closeKillsAndParallelServersGetDifferentPorts() {
        ManagedJvm first = JvmLauncher.on(Jdk.of(25)).name("s1").classpathOf(SampleServer.class)
                .main(SampleServer.class).start();
        ManagedJvm second = JvmLauncher.on(Jdk.of(25)).name("s2").classpathOf(SampleServer.class)
                .main(SampleServer.class).start();
        try (first; second) {
            String port1 = first.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            String port2 = second.awaitLine(SampleServer.READY, Duration.ofSeconds(60)).group(1);
            assertFalse(port1.equals(port2));
        }
        assertFalse(first.isAlive());
        assertFalse(second.isAlive());
    }
}
