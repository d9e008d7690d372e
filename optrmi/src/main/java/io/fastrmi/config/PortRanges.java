package io.fastrmi.config;

import java.util.ArrayList;
import java.util.List;

/** TCP ports as the config names them: {@code 7000, 9000-9099}, or {@code none}. */
public record PortRanges(List<Range> ranges) {

    /** The ports {@code first} to {@code last}, both included. */
    public record Range(int first, int last) {
        @Override
        public String toString() {
            return first == last ? Integer.toString(first) : first + "-" + last;
        }
    }

    public static final PortRanges NONE = new PortRanges(List.of());

    public PortRanges {
        ranges = List.copyOf(ranges);
    }

    /** Parses a list; a malformed item or a port outside 1-65535 is an {@link IllegalArgumentException} naming it. */
    public static PortRanges parse(String value) {
        if (value.trim().equals("none")) {
            return NONE;
        }
        List<Range> ranges = new ArrayList<>();
        for (String item : value.split(",")) {
            String trimmed = item.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int dash = trimmed.indexOf('-');
            String firstText = dash < 0 ? trimmed : trimmed.substring(0, dash);
            String lastText = dash < 0 ? firstText : trimmed.substring(dash + 1);
            if (!isPortNumber(firstText) || !isPortNumber(lastText)) {
                throw new IllegalArgumentException("'" + trimmed + "' is not a port or a range of ports such as 9000-9099");
            }
            int first = Integer.parseInt(firstText);
            int last = Integer.parseInt(lastText);
            if (first < 1 || last > 65535 || first > last) {
                throw new IllegalArgumentException("'" + trimmed + "': ports go from 1 to 65535, the lower first");
            }
            ranges.add(new Range(first, last));
        }
        if (ranges.isEmpty()) {
            throw new IllegalArgumentException("no port named (write none for none)");
        }
        return new PortRanges(ranges);
    }

    /** One to five ASCII digits (parsed by hand: the built-in config is read at every JVM's start, and a regex costs it a millisecond). */
    private static boolean isPortNumber(String text) {
        if (text.isEmpty() || text.length() > 5) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    public boolean contains(int port) {
        for (Range range : ranges) {
            if (port >= range.first() && port <= range.last()) {
                return true;
            }
        }
        return false;
    }

    /** How many ports there are (a port in two ranges counts twice). */
    public int count() {
        int count = 0;
        for (Range range : ranges) {
            count += range.last() - range.first() + 1;
        }
        return count;
    }

    /** The {@code index}th port, counting through the ranges in order, for {@code 0 <= index < count()}. */
    public int port(int index) {
        int left = index;
        for (Range range : ranges) {
            int size = range.last() - range.first() + 1;
            if (left < size) {
                return range.first() + left;
            }
            left -= size;
        }
        throw new IndexOutOfBoundsException(index);
    }

    @Override
    public String toString() {
        if (ranges.isEmpty()) {
            return "none";
        }
        List<String> items = new ArrayList<>();
        for (Range range : ranges) {
            items.add(range.toString());
        }
        return String.join(", ", items);
    }
}
