package io.fastrmi.agent.doctor;

import io.fastrmi.agent.AgentOptions;
import io.fastrmi.config.ConfigException;
import io.fastrmi.config.FastRmiConfig;
import java.util.Map;
import java.util.Properties;

/** Loads the config as the agent does at start: the file (or the built-in defaults), then the overrides. */
@FunctionalInterface
public interface ConfigLoader {

    FastRmiConfig load(AgentOptions.ConfigSource source, Properties properties, Map<String, String> environment)
            throws ConfigException;
}
