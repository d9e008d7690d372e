package io.fastrmi.agent.doctor;

/**
 * What the agent tells its command line about itself: its version, the JDK it runs on (in the words
 * of its start-up log line) and how it loads the config.
 */
public record AgentFacts(String version, String jdk, ConfigLoader configLoader) {
}
