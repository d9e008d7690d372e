package io.fastrmi.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * An installed JDK, found by its feature version. Lookup order for feature N: the system property
 * {@code fastrmi.jdkN}, then the environment variable {@code FASTRMI_JDKN}, then the running JDK if it
 * is N, then the newest JDK N under {@code /usr/lib/jvm}.
 */
public record Jdk(Path home, int feature, String version) {

    private static final Path JVM_DIR = Path.of("/usr/lib/jvm");
    private static final Pattern JAVA_VERSION = Pattern.compile("^JAVA_VERSION=\"([0-9][^\"]*)\"", Pattern.MULTILINE);

    public Path java() {
        return home.resolve("bin/java");
    }

    public Path tool(String name) {
        return home.resolve("bin").resolve(name);
    }

    /** The JDK of feature version {@code feature}, or an exception that says where it looked. */
    public static Jdk of(int feature) {
        return find(feature).orElseThrow(() -> new IllegalStateException(
                "no JDK " + feature + " found: set -Dfastrmi.jdk" + feature + " or FASTRMI_JDK" + feature
                        + ", or install one under " + JVM_DIR));
    }

    public static Optional<Jdk> find(int feature) {
        for (String configured : new String[] {
                System.getProperty("fastrmi.jdk" + feature), System.getenv("FASTRMI_JDK" + feature)}) {
            if (configured != null && !configured.isBlank()) {
                Jdk jdk = at(Path.of(configured)).orElseThrow(() -> new IllegalStateException(
                        configured + " (from fastrmi.jdk" + feature + ") is not a JDK home"));
                if (jdk.feature() != feature) {
                    throw new IllegalStateException(configured + " is JDK " + jdk.feature() + ", not " + feature);
                }
                return Optional.of(jdk);
            }
        }
        Optional<Jdk> running = at(Path.of(System.getProperty("java.home")));
        if (running.isPresent() && running.get().feature() == feature) {
            return running;
        }
        return installed().stream().filter(jdk -> jdk.feature() == feature).findFirst();
    }

    /** The JDKs under /usr/lib/jvm, newest first (links to the same home counted once). */
    public static List<Jdk> installed() {
        List<Jdk> found = new ArrayList<>();
        if (!Files.isDirectory(JVM_DIR)) {
            return found;
        }
        try (Stream<Path> homes = Files.list(JVM_DIR)) {
            homes.map(Jdk::realPath).distinct().map(Jdk::at).flatMap(Optional::stream).forEach(found::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        found.sort(Comparator.comparing(Jdk::feature).thenComparing(Jdk::version).reversed());
        return found;
    }

    /** The JDK at {@code home}, if it has a {@code release} file and a {@code bin/java}. */
    public static Optional<Jdk> at(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/java"))) {
            return Optional.empty();
        }
        try {
            Matcher m = JAVA_VERSION.matcher(Files.readString(release));
            if (!m.find()) {
                return Optional.empty();
            }
            String version = m.group(1);
            return Optional.of(new Jdk(home, featureOf(version), version));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static int featureOf(String version) {
        String first = version.split("[.+\\-_]", 2)[0];
        int feature = Integer.parseInt(first);
        // Pre-9 JDKs spell themselves "1.8.0".
        return feature == 1 ? Integer.parseInt(version.split("\\.")[1]) : feature;
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p;
        }
    }
}
