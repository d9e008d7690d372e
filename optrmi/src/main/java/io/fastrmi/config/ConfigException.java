package io.fastrmi.config;

/** A config file (or override) that cannot be used; the message names where and what was expected. */
public final class ConfigException extends Exception {

    private static final long serialVersionUID = 1L;

    public ConfigException(String source, int line, String message) {
        super(line > 0 ? source + ":" + line + ": " + message : source + ": " + message);
    }
}
