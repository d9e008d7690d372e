package io.fastrmi.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Starts a separate JVM: which JDK, with or without the FastRMI agent, extra JVM flags, an optional
 * JFR recording, a class path and a main class. Every JVM started is killed after its time limit even
 * if the caller forgets it, and when the launching JVM exits.
 *
 * <pre>
 * try (ManagedJvm server = JvmLauncher.on(Jdk.of(17)).name("server").agent(agentJar)
 *         .classpathOf(SampleServer.class).main(SampleServer.class).start()) {
 *     int port = Integer.parseInt(server.awaitLine(SampleServer.READY, Duration.ofSeconds(30)).group(1));
 * }
 * </pre>
 */
public final class JvmLauncher {

    private final Jdk jdk;
    private String name = "jvm";
    private Path agentJar;
    private String agentArgs;
    private Path jfrFile;
    private final List<String> jvmArgs = new ArrayList<>();
    private final List<Path> classpath = new ArrayList<>();
    private String mainClass;
    private final List<String> args = new ArrayList<>();
    private final List<String> wrapper = new ArrayList<>();
    private final java.util.Map<String, String> environment = new java.util.LinkedHashMap<>();
    private Duration timeLimit = Duration.ofMinutes(5);

    private JvmLauncher(Jdk jdk) {
        this.jdk = Objects.requireNonNull(jdk, "jdk");
    }

    public static JvmLauncher on(Jdk jdk) {
        return new JvmLauncher(jdk);
    }

    /** A short name used in thread names and error messages. */
    public JvmLauncher name(String name) {
        this.name = name;
        return this;
    }

    /** Adds {@code -javaagent:jar} (no-op when {@code jar} is null, so callers can pass "maybe"). */
    public JvmLauncher agent(Path jar) {
        return agent(jar, null);
    }

    public JvmLauncher agent(Path jar, String options) {
        this.agentJar = jar;
        this.agentArgs = options;
        return this;
    }

    /** Records JFR into {@code file}, dumped when the JVM exits (normally or on SIGTERM). */
    public JvmLauncher jfr(Path file) {
        this.jfrFile = file;
        return this;
    }

    public JvmLauncher jvmArgs(String... flags) {
        jvmArgs.addAll(List.of(flags));
        return this;
    }

    public JvmLauncher classpath(Path... entries) {
        classpath.addAll(List.of(entries));
        return this;
    }

    /** Adds the jar or classes directory that {@code type} was loaded from. */
    public JvmLauncher classpathOf(Class<?> type) {
        return classpath(codeSourceOf(type));
    }

    public JvmLauncher main(Class<?> type) {
        return main(type.getName());
    }

    public JvmLauncher main(String className) {
        this.mainClass = className;
        return this;
    }

    public JvmLauncher args(String... arguments) {
        args.addAll(List.of(arguments));
        return this;
    }

    public JvmLauncher args(List<String> arguments) {
        args.addAll(arguments);
        return this;
    }

    /**
     * Runs the JVM under a command prefix, e.g. {@code ip netns exec host1} to put it in a network
     * namespace.
     */
    public JvmLauncher wrapper(String... prefix) {
        wrapper.addAll(List.of(prefix));
        return this;
    }

    /** Sets an environment variable for the JVM (on top of this JVM's environment). */
    public JvmLauncher env(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /** The JVM is killed after this long, whatever happens (default five minutes). */
    public JvmLauncher timeLimit(Duration limit) {
        this.timeLimit = limit;
        return this;
    }

    /** The full command line, for logs and for running by hand. */
    public List<String> command() {
        List<String> cmd = new ArrayList<>(wrapper);
        cmd.add(jdk.java().toString());
        if (agentJar != null) {
            cmd.add("-javaagent:" + agentJar + (agentArgs == null ? "" : "=" + agentArgs));
        }
        if (jfrFile != null) {
            cmd.add("-XX:StartFlightRecording=dumponexit=true,filename=" + jfrFile);
        }
        cmd.addAll(jvmArgs);
        if (!classpath.isEmpty()) {
            cmd.add("-cp");
            cmd.add(classpath.stream().map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator)));
        }
        if (mainClass != null) {
            cmd.add(mainClass);
        }
        cmd.addAll(args);
        return cmd;
    }

    public ManagedJvm start() {
        List<String> cmd = command();
        ProcessBuilder builder = new ProcessBuilder(cmd);
        builder.environment().putAll(environment);
        try {
            return new ManagedJvm(name, jdk, cmd, builder.start(), timeLimit);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + String.join(" ", cmd), e);
        }
    }

    public static Path codeSourceOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException | NullPointerException e) {
            throw new IllegalArgumentException("no code source for " + type.getName(), e);
        }
    }
}
