package io.fastrmi.agent;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The agent argument, {@code -javaagent:fastrmi-agent.jar[=key=value[,key=value...]]}. Known keys:
 * {@code config} (the config file). An unknown key or a malformed entry is an error that names it.
 */
public record AgentOptions(Optional<Path> config) {

    public static final AgentOptions NONE = new AgentOptions(Optional.empty());

    public static AgentOptions parse(String argument) {
        if (argument == null || argument.isBlank()) {
            return NONE;
        }
        Optional<Path> config = Optional.empty();
        for (String entry : argument.split(",")) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("agent argument '" + entry + "' is not key=value (known keys: config)");
            }
            String key = entry.substring(0, eq).trim();
            String value = entry.substring(eq + 1).trim();
            if (!key.equals("config")) {
                throw new IllegalArgumentException("unknown agent argument key '" + key + "' (known keys: config)");
            }
            if (value.isEmpty()) {
                throw new IllegalArgumentException("agent argument config= needs a file path");
            }
            config = Optional.of(Path.of(value));
        }
        return new AgentOptions(config);
    }

    /**
     * Where the config comes from: the agent argument, else {@code -Dfastrmi.config}, else
     * {@code FASTRMI_CONFIG}, else the built-in defaults.
     */
    public ConfigSource configSource(Map<String, String> environment, String systemProperty) {
        if (config.isPresent()) {
            return new ConfigSource(config, "agent argument config=");
        }
        if (systemProperty != null && !systemProperty.isBlank()) {
            return new ConfigSource(Optional.of(Path.of(systemProperty)), "-Dfastrmi.config");
        }
        String fromEnvironment = environment.get("FASTRMI_CONFIG");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return new ConfigSource(Optional.of(Path.of(fromEnvironment)), "FASTRMI_CONFIG");
        }
        return new ConfigSource(Optional.empty(), "built-in defaults");
    }

    /** A config file (or none, for the built-in defaults) and what named it. */
    public record ConfigSource(Optional<Path> file, String origin) {
        @Override
        public String toString() {
            return file.isPresent() ? file.get() + " (from " + origin + ")"
                    : "none, built-in defaults (this host inside, every other host outside)";
        }
    }
}
