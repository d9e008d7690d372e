package io.fastrmi.agent.doctor;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code doctor} finds, as text printed while it goes, or ({@code --json}, for scripts) as one
 * JSON object at the end: a member per section, holding its rows by label; {@code "error"} and
 * {@code "hint"} when a check failed; {@code "exit"}, the exit code.
 */
final class Report {

    private static final int LABEL_WIDTH = 18;

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;
    private final Map<String, Object> root = new LinkedHashMap<>();
    private Map<String, Object> section = root;

    Report(PrintWriter out, PrintWriter err, boolean json) {
        this.out = out;
        this.err = err;
        this.json = json;
    }

    /** A new section: its heading in text (none when null), member {@code key} in JSON. */
    void section(String key, String heading) {
        if (json) {
            section = new LinkedHashMap<>();
            root.put(key, section);
        } else if (heading != null) {
            out.println(heading);
        }
    }

    /** A labelled finding of the current section. */
    void row(String label, String value) {
        if (json) {
            section.put(label, value);
            return;
        }
        StringBuilder line = new StringBuilder("  ").append(label);
        do {
            line.append(' ');
        } while (line.length() < LABEL_WIDTH + 3);
        out.println(line.append(value));
    }

    /** A line of its own in text ("config: FILE"); member {@code key} with {@code value} in JSON. */
    void line(String key, Object value, String text) {
        if (json) {
            section.put(key, value);
        } else {
            out.println(text);
        }
    }

    /** A remark under the section's rows. */
    void note(String text) {
        if (json) {
            @SuppressWarnings("unchecked")
            List<Object> notes = (List<Object>) section.computeIfAbsent("notes", key -> new ArrayList<>());
            notes.add(text.strip());
        } else {
            out.println(text);
        }
    }

    /** Space between sections (text only). */
    void blank() {
        if (!json) {
            out.println();
        }
    }

    /** A failed check: said on standard error (and in the JSON); the exit code, 1. */
    int error(String message, String hint) {
        out.flush();
        err.println("error: " + message);
        if (hint != null) {
            err.println("  " + hint);
        }
        root.put("error", message);
        if (hint != null) {
            root.put("hint", hint);
        }
        return 1;
    }

    /** The end: with {@code --json} the object is printed now. */
    void finish(int exitCode) {
        if (json) {
            root.put("exit", exitCode);
            StringBuilder text = new StringBuilder();
            write(text, root, "");
            out.println(text);
        }
        out.flush();
        err.flush();
    }

    private static void write(StringBuilder text, Object value, String indent) {
        if (value instanceof Map<?, ?> map) {
            text.append("{");
            String separator = "\n";
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                text.append(separator).append(indent).append("  ");
                string(text, entry.getKey().toString());
                text.append(": ");
                write(text, entry.getValue(), indent + "  ");
                separator = ",\n";
            }
            text.append(map.isEmpty() ? "}" : "\n" + indent + "}");
        } else if (value instanceof List<?> list) {
            text.append("[");
            String separator = "";
            for (Object item : list) {
                text.append(separator);
                write(text, item, indent);
                separator = ", ";
            }
            text.append("]");
        } else if (value instanceof Number || value instanceof Boolean) {
            text.append(value);
        } else if (value == null) {
            text.append("null");
        } else {
            string(text, value.toString());
        }
    }

    /** A JSON string: quotes, backslashes and control characters escaped. */
    static void string(StringBuilder text, String value) {
        text.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> text.append("\\\"");
                case '\\' -> text.append("\\\\");
                case '\n' -> text.append("\\n");
                case '\r' -> text.append("\\r");
                case '\t' -> text.append("\\t");
                default -> {
                    if (c < 0x20) {
                        text.append(String.format("\\u%04x", (int) c));
                    } else {
                        text.append(c);
                    }
                }
            }
        }
        text.append('"');
    }
}
