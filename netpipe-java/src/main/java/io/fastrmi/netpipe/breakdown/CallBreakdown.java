package io.fastrmi.netpipe.breakdown;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where an RMI call's time goes, from a JFR recording with method sampling (settings=profile): every
 * Java and native method sample of a thread inside an RMI call ({@link SampleClassifier}), counted by
 * {@link Category}. Native samples are the threads in native code, waiting for the peer included, so
 * the shares are of the calls' wall time as the sampled threads spent it, as in seed 003's profiles.
 */
public final class CallBreakdown {

    private final Map<Category, Long> samples = new EnumMap<>(Category.class);
    private long outsideCalls;

    /** Counts the samples of {@code recording}. */
    public static CallBreakdown of(Path recording) throws IOException {
        CallBreakdown breakdown = new CallBreakdown();
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                String type = event.getEventType().getName();
                if ((type.equals("jdk.ExecutionSample") || type.equals("jdk.NativeMethodSample")) && event.getStackTrace() != null) {
                    breakdown.add(frames(event));
                }
            }
        }
        return breakdown;
    }

    void add(List<String> frames) {
        Optional<Category> category = SampleClassifier.classify(frames);
        if (category.isPresent()) {
            samples.merge(category.get(), 1L, Long::sum);
        } else {
            outsideCalls++;
        }
    }

    public long total() {
        return samples.values().stream().mapToLong(Long::longValue).sum();
    }

    public long count(Category category) {
        return samples.getOrDefault(category, 0L);
    }

    /** A line per category: its samples and share of the samples inside calls. */
    public String report(String title) {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%s: %d samples inside RMI calls (%d outside, left out)%n",
                title, total(), outsideCalls));
        for (Category category : Category.values()) {
            long count = count(category);
            out.append(String.format(Locale.ROOT, "  %-14s %6d  %5.1f%%%n", category, count,
                    total() == 0 ? 0.0 : 100.0 * count / total()));
        }
        return out.toString();
    }

    private static List<String> frames(RecordedEvent event) {
        List<String> frames = new ArrayList<>();
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            frames.add(frame.getMethod().getType().getName() + "." + frame.getMethod().getName());
        }
        return frames;
    }
}
