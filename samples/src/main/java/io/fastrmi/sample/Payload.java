package io.fastrmi.sample;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/** A small object graph: a string, a primitive array, a list and a nested object. */
public final class Payload implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final int[] values;
    private final List<String> tags;
    private final Payload child;

    public Payload(String name, int[] values, List<String> tags, Payload child) {
        this.name = name;
        this.values = values.clone();
        this.tags = new ArrayList<>(tags);
        this.child = child;
    }

    public String name() {
        return name;
    }

    public int[] values() {
        return values.clone();
    }

    public List<String> tags() {
        return List.copyOf(tags);
    }

    public Payload child() {
        return child;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Payload p && name.equals(p.name) && Arrays.equals(values, p.values)
                && tags.equals(p.tags) && Objects.equals(child, p.child);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, Arrays.hashCode(values), tags, child);
    }

    @Override
    public String toString() {
        return "Payload(" + name + ", " + Arrays.toString(values) + ", " + tags + ", " + child + ")";
    }
}
