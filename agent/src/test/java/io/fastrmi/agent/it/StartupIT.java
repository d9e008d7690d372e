package io.fastrmi.agent.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.agent.nativeit.LateRecordingMain;
import io.fastrmi.agent.nativeit.StartupMain;
import io.fastrmi.testkit.Jdk;
import io.fastrmi.testkit.JvmLauncher;
import io.fastrmi.testkit.ManagedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the agent costs a JVM that never uses RMI, told by the classes it loads (timing is measured
 * by {@code make startup}, never asserted): premain reads the config and registers its transformer,
 * and FastRMI's runtime, Byte Buddy and the record and lambda machinery of java.lang.invoke wait
 * for RMI's first class. A JVM that serializes without RMI pays no more. A JVM that uses RMI shows
 * that the same class names are the ones that do load, so that the absences mean something.
 */
class StartupIT {

    /** Loaded only once FastRMI's runtime starts, or Byte Buddy does. */
    /** How many classes the agent weaves (RmiInstrumentation.TARGETS, not visible from here). */
    private static final int WOVEN_CLASSES = 8;
    private static final String BYTE_BUDDY = "io.fastrmi.agent.shaded.bytebuddy.";
    /** Loaded as JFR starts (it registers the event types); the agent's listener for that start loads a few others. */
    private static final String JFR_STARTED = "jdk.jfr.internal.MetadataRepository ";
    private static final List<String> RUNTIME = List.of("io.fastrmi.fastsockets.handshake.Installation ",
            "io.fastrmi.fastsockets.transport.NativeTransports ", BYTE_BUDDY);

    @ParameterizedTest(name = "JDK {0}, {1}")
    @CsvSource({"25, hello", "25, serialize", "17, hello", "17, serialize"})
    void aJvmWithoutRmiLoadsNeitherTheRuntimeNorByteBuddy(int feature, String life) throws Exception {
        List<String> classes = classesLoaded(feature, life);
        assertTrue(classes.stream().anyMatch(c -> c.startsWith("io.fastrmi.agent.RmiInstrumentation ")),
                "premain registered the transformer");
        assertTrue(classes.stream().anyMatch(c -> c.startsWith("io.fastrmi.config.FastRmiConfig ")), "premain read the config");
        for (String runtime : RUNTIME) {
            assertEquals(List.of(), matching(classes, runtime), "loaded without RMI");
        }
        // A record's generated equals/hashCode or a lambda in premain's code costs milliseconds of java.lang.invoke.
        assertEquals(List.of(), matching(classes, "java.lang.runtime.ObjectMethods "), "a record's generated methods ran in premain");
        assertEquals(List.of(), classes.stream().filter(c -> c.startsWith("io.fastrmi.") && c.contains("$$Lambda"))
                .collect(Collectors.toList()), "a lambda of FastRMI's ran in premain");
    }

    @ParameterizedTest(name = "JDK {0}")
    @CsvSource({"25", "17"})
    void rmiStartsTheRuntime(int feature) throws Exception {
        List<String> classes = classesLoaded(feature, "rmi");
        for (String runtime : RUNTIME) {
            assertTrue(!matching(classes, runtime).isEmpty(), runtime + "was not loaded by a JVM using RMI");
        }
        // The library is called through JNI by default on every JDK: linking FFM's downcalls would
        // spin method-handle classes whose compilation costs every JVM CPU after RMI starts.
        assertTrue(!matching(classes, "io.fastrmi.fastsockets.jni.JniNativeLibrary ").isEmpty(), "the library was not bound through JNI");
        assertEquals(List.of(), matching(classes, "jdk.internal.foreign.abi.DowncallLinker "), "FFM downcalls were linked");
        // The advice visits RMI's classes as ASM reads them: Byte Buddy's type builder, its method
        // graphs and type writer, are never loaded (300 classes and a third of the weaving's CPU).
        assertEquals(List.of(), matching(classes, "io.fastrmi.agent.shaded.bytebuddy.dynamic.scaffold.TypeWriter "),
                "RMI's classes were woven through Byte Buddy's type builder");
        // Nothing records here: FastRMI's event classes, whose initialization starts JFR's own
        // machinery (about 200 ms of CPU), are left alone.
        assertEquals(List.of(), matching(classes, JFR_STARTED), "JFR was started in a JVM that records nothing");
    }

    /**
     * A recording asked for at start finds FastRMI's event types registered as JFR starts, before
     * any RMI, so they are in the metadata JFR writes first. Registered at their first use instead,
     * inside a job's first connections, they made JFR write its metadata again and the JIT compile
     * that: about 120 ms of CPU in each of TSP's workers. A JVM that does not record loads the
     * listener's few classes of JFR and never starts it.
     */
    @ParameterizedTest(name = "JDK {0}, recording {1}")
    @CsvSource({"25, true", "17, true", "25, false"})
    void aRecordingAtStartFindsFastRmisEventTypesRegisteredBeforeAnyRmi(int feature, boolean recording) throws Exception {
        Path dir = ItSupport.directory("startup-" + feature + "-event-types-" + (recording ? "recorded" : "unrecorded"));
        Path log = dir.resolve("classes.log");
        List<String> jvmArgs = new java.util.ArrayList<>(List.of("-Xlog:class+load=info:file=" + log + ":none"));
        if (recording) {
            jvmArgs.add("-XX:StartFlightRecording=filename=" + dir.resolve("start.jfr"));
        }
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(feature)).name("event-types").agent(ItSupport.agentJar())
                .jvmArgs(jvmArgs.toArray(new String[0])).classpathOf(StartupMain.class).main(StartupMain.class)
                .args("event-types").start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(2)), () -> jvm.failure("exit code").getMessage());
            String expected = recording ? "EVENT_TYPES [fastrmi.Handshake, fastrmi.RmiCall]" : "EVENT_TYPES not recording";
            assertTrue(jvm.output().contains(expected), () -> "no " + expected + " in " + jvm.output());
        }
        List<String> classes = Files.readAllLines(log);
        assertEquals(List.of(), matching(classes, "sun.rmi."), "the JVM used RMI");
        if (!recording) {
            assertEquals(List.of(), matching(classes, JFR_STARTED), "JFR was started in a JVM that records nothing");
        }
    }

    /**
     * A JVM's first calls, on each kind of connection, link no lambda, method reference or record
     * method of FastRMI's: each spins a class through java.lang.invoke at its first use, about a
     * millisecond of CPU and then the JIT's work on the machinery, which a parallel job's JVMs pay
     * all at once (38 of them cost a JVM about 40 ms of its first call's CPU before they went).
     * With a recording on too, where the calls make FastRMI's JFR events.
     */
    @ParameterizedTest(name = "JDK {0}, {1}, recording {2}")
    @CsvSource({"25, ucx:shm, false", "25, ofi:shm, false", "25, tcp, false", "17, ucx:shm, false", "25, ucx:shm, true",
        "17, tcp, true"})
    void aJvmsFirstCallsSpinNoClassOfFastRmis(int feature, String transport, boolean recording) throws Exception {
        Path dir = ItSupport.directory("startup-" + feature + "-call-" + transport.replace(':', '-') + (recording ? "-recorded" : ""));
        Path log = dir.resolve("classes.log");
        List<String> jvmArgs = new java.util.ArrayList<>(List.of("-Djava.io.tmpdir=" + dir,
                "-Xlog:class+load=info,class+init=info:file=" + log + ":none"));
        if (recording) {
            // FastRMI's events are made from the first call on: the event classes, the threads' calls
            jvmArgs.add("-XX:StartFlightRecording=filename=" + dir.resolve("calls.jfr"));
        }
        try (ManagedJvm jvm = ItSupport.underAgent(JvmLauncher.on(Jdk.of(feature)).name("call"),
                ItSupport.transportConfig(dir, transport))
                .jvmArgs(jvmArgs.toArray(new String[0]))
                .classpathOf(StartupMain.class).main(StartupMain.class).args("call").start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(2)), () -> jvm.failure("exit code").getMessage());
            assertTrue(jvm.output().contains("ANSWER 42"), jvm.output()::toString);
        }
        List<String> classes = Files.readAllLines(log);
        // The path ran: the calls were lean, over the transport's own connection class.
        String connection = transport.equals("tcp") ? "io.fastrmi.fastsockets.transport.PollingInput "
                : "io.fastrmi.fastsockets.transport.NativeConnection ";
        List<String> ranClasses = new java.util.ArrayList<>(List.of("sun.rmi.transport.LeanConnectionInputStream ",
                "io.fastrmi.agent.bootstrap.LeanStreams ", connection,
                // the agent's export lets the lean codec call the JDK's Unsafe directly, with no method handle
                "io.fastrmi.optrmi.lean.UnsafeFields "));
        if (recording) {
            ranClasses.add("io.fastrmi.agent.bootstrap.RmiCallEvent ");
        }
        for (String ran : ranClasses) {
            assertTrue(!matching(classes, ran).isEmpty(), ran + "was not loaded: the path did not run");
        }
        assertEquals(List.of(), classes.stream().filter(c -> c.startsWith("io.fastrmi.") && !c.startsWith("io.fastrmi.agent.nativeit.")
                && c.contains("$$Lambda")).collect(Collectors.toList()), "a lambda of FastRMI's ran");
        assertEquals(List.of(), matching(classes, "java.lang.runtime.ObjectMethods "), "a record's generated methods ran");
        // A server keys a client's context by its pid and start time from /proc/PID/stat, not by
        // ProcessHandle.info(), which also reads the command line and looks the user up by name.
        assertEquals(List.of(), matching(classes, "java.lang.ProcessHandleImpl$Info "), "a process's info was read");
        // No record crosses: the JDK's record support (5-6 ms to initialize) is left for one that does.
        assertEquals(List.of(), classes.stream().filter(c -> c.contains("Initializing 'java/io/ObjectStreamClass$RecordSupport'"))
                .collect(Collectors.toList()), "the record support was initialized");
    }

    /**
     * A runtime made with jlink without the {@code jdk.jfr} module: FastRMI names no class of JFR's
     * there, so the agent starts, weaves RMI and makes the call lean over the native transport. It
     * used to fail weaving RMI's call classes (their advice named the event class, whose superclass
     * is JFR's) and then the call itself; after the JFR listener came, premain turned the agent off.
     */
    @ParameterizedTest(name = "JDK {0}")
    @CsvSource({"25", "17"})
    void aRuntimeWithoutJfrMakesLeanCallsOverTheNativeTransport(int feature) throws Exception {
        Path dir = ItSupport.directory("startup-" + feature + "-without-jfr");
        Path runtime = dir.resolve("runtime");
        Jdk jdk = Jdk.of(feature);
        Process jlink = new ProcessBuilder(jdk.tool("jlink").toString(), "--add-modules",
                "java.base,java.rmi,java.instrument,java.logging,java.management,jdk.unsupported", "--output",
                runtime.toString()).redirectErrorStream(true).start();
        String jlinkOutput = new String(jlink.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, jlink.waitFor(), jlinkOutput);
        Jdk withoutJfr = Jdk.at(runtime).orElseThrow();
        Path log = dir.resolve("classes.log");
        List<String> output;
        try (ManagedJvm jvm = ItSupport.underAgent(JvmLauncher.on(withoutJfr).name("without-jfr"),
                ItSupport.transportConfig(dir, "ucx:shm"))
                .jvmArgs("-Djava.io.tmpdir=" + dir, "-Xlog:class+load=info:file=" + log + ":none")
                .classpathOf(StartupMain.class).main(StartupMain.class).args("call").start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(2)), () -> jvm.failure("exit code").getMessage());
            output = jvm.output();
        }
        assertTrue(output.contains("ANSWER 42"), output::toString);
        assertEquals(List.of(), output.stream().filter(l -> l.contains("SEVERE") || l.contains("FastRMI is OFF")
                || l.contains("Error")).collect(Collectors.toList()), "the agent failed on a runtime without JFR");
        List<String> classes = Files.readAllLines(log);
        for (String ran : List.of("sun.rmi.transport.LeanConnectionInputStream ", "io.fastrmi.fastsockets.transport.NativeConnection ")) {
            assertTrue(!matching(classes, ran).isEmpty(), ran + "was not loaded: the path did not run");
        }
    }

    /**
     * The start line under the JDK's logging as it comes is printed by FastRMI, with no time stamp:
     * JUL's formatter reads the time zone rules and the locale's month names for one (RMI itself
     * reads neither), 50-80 ms of CPU that a parallel job's JVMs pay all at once. A format of the
     * application's gets the line through JUL; a level that turns FastRMI's logging off, no line.
     */
    @ParameterizedTest(name = "JDK {0}, {1} logging")
    @CsvSource({"25, default", "25, format", "25, off", "17, default", "17, format"})
    void theStartLineSpendsNothingOnATimeStampUnderTheDefaultLogging(int feature, String logging) throws Exception {
        Path dir = ItSupport.directory("startup-" + feature + "-start-line-" + logging);
        Path log = dir.resolve("classes.log");
        List<String> jvmArgs = new java.util.ArrayList<>(List.of("-Djava.io.tmpdir=" + dir,
                "-Xlog:class+load=info:file=" + log + ":none"));
        if (!logging.equals("default")) {
            Path properties = Files.write(dir.resolve("logging.properties"), List.of("handlers = java.util.logging.ConsoleHandler",
                    logging.equals("format") ? "java.util.logging.SimpleFormatter.format = APPLICATION-FORMAT %5$s%n"
                            : "io.fastrmi.level = OFF"));
            jvmArgs.add("-Djava.util.logging.config.file=" + properties);
        }
        List<String> output;
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(feature)).name("start-line-" + logging).agent(ItSupport.agentJar())
                .jvmArgs(jvmArgs.toArray(new String[0])).classpathOf(StartupMain.class).main(StartupMain.class).args("rmi")
                .start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(2)), () -> jvm.failure("exit code").getMessage());
            output = jvm.output();
        }
        List<String> startLines = output.stream().filter(l -> l.contains("FastRMI ") && l.contains("(premain) on JDK " + feature))
                .collect(Collectors.toList());
        switch (logging) {
            case "default" -> {
                assertEquals(1, startLines.size(), output::toString);
                assertTrue(startLines.get(0).startsWith("INFO: FastRMI "), startLines::toString);
                assertEquals(List.of(), matching(Files.readAllLines(log), "java.time.zone.TzdbZoneRulesProvider "),
                        "the time zone rules were read for the start line");
            }
            case "format" -> {
                assertEquals(1, startLines.size(), output::toString);
                assertTrue(startLines.get(0).startsWith("APPLICATION-FORMAT FastRMI "), startLines::toString);
            }
            default -> assertEquals(List.of(), startLines, "logged with io.fastrmi.level = OFF");
        }
    }

    /**
     * JFR started after RMI (as by {@code jcmd JFR.start}) records FastRMI's events from then on:
     * a new connection's handshake, fast, and the call on it, from both ends.
     */
    @ParameterizedTest(name = "JDK {0}")
    @CsvSource({"25", "17"})
    void aRecordingBegunAfterRmiStartedRecordsFastRmisEvents(int feature) throws Exception {
        Path recording = ItSupport.directory("startup-" + feature + "-late-recording").resolve("late.jfr");
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(feature)).name("late-recording").agent(ItSupport.agentJar())
                .classpathOf(LateRecordingMain.class).main(LateRecordingMain.class).args(recording.toString()).start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(2)), () -> jvm.failure("exit code").getMessage());
            assertTrue(jvm.output().contains("DONE"), jvm.output()::toString);
            assertTrue(jvm.output().contains("JFR_BEFORE false"), () -> "JFR had started before the recording: " + jvm.output());
            assertTrue(jvm.output().contains("HANDSHAKES 2"), () -> "the new connection's two ends: " + jvm.output());
            assertTrue(jvm.output().contains("CALLS 2"), () -> "the call's client and server events: " + jvm.output());
        }
    }

    /**
     * A JVM whose JDK and agent a JVM before it wove for takes RMI's classes as that one left them in
     * the user's folder and never loads Byte Buddy; its calls are still FastRMI's (fast, lean, and
     * recorded by the advice). A damaged file there is only a miss: the next JVM weaves again.
     */
    @ParameterizedTest(name = "JDK {0}")
    @CsvSource({"25", "17"})
    void aJvmAfterTheFirstTakesTheWovenClassesFromTheUsersFolder(int feature) throws Exception {
        Path tmp = ItSupport.directory("startup-" + feature + "-woven-cache");
        assertTrue(!matching(lateRecording(feature, tmp, "first"), BYTE_BUDDY).isEmpty(), "the first JVM did not weave");
        List<Path> kept;
        try (Stream<Path> files = Files.walk(tmp)) {
            kept = files.filter(f -> f.getFileName().toString().startsWith("woven-")).collect(Collectors.toList());
        }
        assertEquals(WOVEN_CLASSES, kept.size(), kept::toString);

        assertEquals(List.of(), matching(lateRecording(feature, tmp, "second"), BYTE_BUDDY),
                "a JVM after the first wove RMI's classes again");

        for (Path file : kept) {
            byte[] content = Files.readAllBytes(file);
            Files.write(file, Arrays.copyOf(content, content.length / 2));
        }
        assertTrue(!matching(lateRecording(feature, tmp, "damaged"), BYTE_BUDDY).isEmpty(),
                "damaged files were taken as woven classes");
    }

    /** {@link LateRecordingMain}'s life with its temporary files in {@code tmp}: the classes it loaded, after checking its calls. */
    private static List<String> lateRecording(int feature, Path tmp, String name) throws Exception {
        Path log = tmp.resolve(name + "-classes.log");
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(feature)).name(name).agent(ItSupport.agentJar())
                .jvmArgs("-Djava.io.tmpdir=" + tmp, "-Xlog:class+load=info:file=" + log + ":none")
                .classpathOf(LateRecordingMain.class).main(LateRecordingMain.class).args(tmp.resolve(name + ".jfr").toString())
                .start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(2)), () -> jvm.failure("exit code").getMessage());
            for (String line : List.of("HANDSHAKES 2", "CALLS 2", "LEAN_CALLS 2", "DONE")) {
                assertTrue(jvm.output().contains(line), () -> name + ": no " + line + " in " + jvm.output());
            }
        }
        return Files.readAllLines(log);
    }

    private static List<String> matching(List<String> classes, String prefix) {
        return classes.stream().filter(c -> c.startsWith(prefix)).collect(Collectors.toList());
    }

    /** The classes a JVM with the agent loaded in its life, each as "NAME source: ..." from -Xlog:class+load. */
    private static List<String> classesLoaded(int feature, String life) throws Exception {
        // A folder of its own for the JVM's temporary files: no woven classes kept by an earlier JVM.
        Path dir = ItSupport.directory("startup-" + feature + "-" + life);
        Path log = dir.resolve("classes.log");
        try (ManagedJvm jvm = JvmLauncher.on(Jdk.of(feature)).name(life).agent(ItSupport.agentJar())
                .jvmArgs("-Djava.io.tmpdir=" + dir, "-Xlog:class+load=info:file=" + log + ":none")
                .classpathOf(StartupMain.class).main(StartupMain.class).args(life).start()) {
            assertEquals(0, jvm.awaitExit(Duration.ofMinutes(2)), () -> jvm.failure("exit code").getMessage());
            assertTrue(jvm.output().contains("DONE"), jvm.output()::toString);
        }
        return Files.readAllLines(log);
    }
}
