package io.fastrmi.agent;

import io.fastrmi.agent.doctor.AgentFacts;
import io.fastrmi.agent.doctor.Cli;
import java.lang.instrument.Instrumentation;

/**
 * The agent's entry points: {@code -javaagent:fastrmi-agent.jar[=config=PATH]} (premain), a late
 * attach (agentmain), and {@code java -jar fastrmi-agent.jar} (main). Whatever goes wrong while
 * starting, the application keeps running as plain RMI and the reason is logged once.
 */
public final class FastRmiAgent {

    private static volatile boolean started;

    private FastRmiAgent() {
    }

    public static void premain(String argument, Instrumentation inst) {
        start(argument, inst, "premain");
    }

    public static void agentmain(String argument, Instrumentation inst) {
        start(argument, inst, "attached");
    }

    /**
     * {@code java -jar fastrmi-agent.jar [doctor ...]}: the command line. It (and picocli, which the jar
     * carries relocated) is named only here, so premain never loads it.
     */
    public static void main(String[] args) {
        int code = Cli.run(args, new AgentFacts(version(), jdkDescription(), ConfigLoading::load));
        if (code != 0) {
            System.exit(code);
        }
    }

    private static synchronized void start(String argument, Instrumentation inst, String how) {
        if (started) {
            System.getLogger(LOGGER).log(System.Logger.Level.WARNING, "FastRMI: agent loaded twice; the second one (" + how + ") does nothing");
            return;
        }
        try {
            AgentOptions options = AgentOptions.parse(argument);
            AgentOptions.ConfigSource config =
                    options.configSource(System.getenv(), System.getProperty("fastrmi.config"));
            BootstrapJar.appendToBootClassPath(inst);
            // Only now may FastRMI's runtime classes load, from the boot class path just added; so
            // they are named in a class of their own, which loads only now too.
            // Set first: attached late, the install itself instruments RMI's loaded classes, and logs it.
            StartLine.set("FastRMI " + version() + " (" + how + ") on " + jdkDescription() + ", config: " + config);
            boolean everySocket = Startup.installRuntime(inst, config);
            started = true;
            if (everySocket) {
                StartLine.log(); // scope = jvm: FastRMI has work from now on
            }
        } catch (Throwable t) {
            boolean explained = t instanceof IllegalArgumentException || t.getClass().getName().endsWith("ConfigException");
            System.getLogger(LOGGER).log(System.Logger.Level.ERROR, "FastRMI is OFF, this JVM runs plain RMI: "
                    + (explained ? t.getMessage() : t.toString()), explained ? null : t);
        }
    }

    static final String LOGGER = "io.fastrmi.agent";

    static String version() {
        String version = FastRmiAgent.class.getPackage().getImplementationVersion();
        return version == null ? "(development build)" : version;
    }

    static String jdkDescription() {
        return "JDK " + System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vm.name") + ", "
                + System.getProperty("java.vendor") + ")";
    }
}
