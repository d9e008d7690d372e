package io.fastrmi.netpipe.bench.compare;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fastrmi.netpipe.bench.objects.Item;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What netpipe-java's {@code suite} measured, item by item, as the side-by-side run ({@link Compare})
 * reads it: a JSON file the suite writes as it goes (so a suite killed at its time limit still leaves
 * what it did), not its printed lines.
 */
public final class SuiteResults {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** One item: its best round trip and bytes, or why it failed. */
    public record Item(String item, Double callMicros, Long bytes, String failure) {
        public static Item measured(String item, double callMicros, long bytes) {
            return new Item(item, callMicros, bytes, null);
        }

        public static Item failed(String item, String why) {
            return new Item(item, null, null, why);
        }

        CompareResults.Cell cell() {
            return failure != null ? CompareResults.Cell.failed(failure) : CompareResults.Cell.timed(callMicros);
        }
    }

    private final Path file;
    private final List<Item> items = new ArrayList<>();

    public SuiteResults(Path file) {
        this.file = file;
    }

    /** Adds an item and writes the file anew. */
    public void add(Item item) throws IOException {
        items.add(item);
        Files.createDirectories(file.toAbsolutePath().getParent());
        JSON.writeValue(file.toFile(), items);
    }

    /** What a suite wrote to {@code file}; none when it wrote nothing. */
    static List<Item> read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return List.of();
        }
        return List.of(JSON.readValue(file.toFile(), Item[].class));
    }
}
