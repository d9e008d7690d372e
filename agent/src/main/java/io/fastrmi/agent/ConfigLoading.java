package io.fastrmi.agent;

import io.fastrmi.config.ConfigException;
import io.fastrmi.config.FastRmiConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/** The config as this JVM sees it: the file (or the built-in defaults), then the overrides. */
public final class ConfigLoading {

    private ConfigLoading() {
    }

    public static FastRmiConfig load(AgentOptions.ConfigSource source, Properties properties, Map<String, String> environment)
            throws ConfigException {
        FastRmiConfig file = source.file().isPresent() ? FastRmiConfig.load(source.file().get()) : FastRmiConfig.builtIn();
        Map<String, String> fastrmiProperties = new HashMap<>();
        for (String name : properties.stringPropertyNames()) {
            if (name.startsWith("fastrmi.")) {
                fastrmiProperties.put(name, properties.getProperty(name));
            }
        }
        return file.withOverrides(fastrmiProperties, environment);
    }
}
