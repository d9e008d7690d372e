package io.fastrmi.agent.doctor;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The command line of {@code java -jar fastrmi-agent.jar}: usage without a command, {@code --help},
 * {@code --version}, and {@code doctor}. Only the agent's {@code main} loads this class (and picocli,
 * which the agent jar carries relocated); premain never does, so the agent's start-up does not pay
 * for it. Exit codes: 0 done, 1 a check failed (bad config, server unreachable), 2 bad usage.
 */
public final class Cli {

    static final String NAME = "java -jar fastrmi-agent.jar";

    private Cli() {
    }

    /** Runs the command line on standard output and error; returns the exit code. */
    public static int run(String[] args, AgentFacts agent) {
        return run(args, agent, new PrintWriter(System.out, true),
                new PrintWriter(System.err, true));
    }

    static int run(String[] args, AgentFacts agent, PrintWriter out, PrintWriter err) {
        CommandLine commandLine = commandLine(agent, out, err);
        int code = commandLine.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    static CommandLine commandLine(AgentFacts agent, PrintWriter out, PrintWriter err) {
        CommandLine commandLine = new CommandLine(new Main());
        commandLine.addSubcommand(new CommandLine(new DoctorCommand(agent, out, err)));
        String[] version = {"FastRMI " + agent.version(), agent.jdk()};
        commandLine.getCommandSpec().version(version);
        commandLine.getSubcommands().get("doctor").getCommandSpec().version(version);
        commandLine.setOut(out);
        commandLine.setErr(err);
        commandLine.setParameterExceptionHandler(Cli::badUsage);
        return commandLine;
    }

    /** A bad option or argument: picocli's message and where the help is, not the whole usage (exit 2). */
    private static int badUsage(CommandLine.ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println(e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("Try '" + command.getCommandSpec().qualifiedName() + " --help' for more information.");
        err.flush();
        return command.getCommandSpec().exitCodeOnInvalidInput();
    }

    @Command(name = NAME, mixinStandardHelpOptions = true, sortOptions = false,
            description = {
                "FastRMI makes Java RMI fast between the JVMs of one cluster. Add the agent to an existing job and"
                        + " list in the config file which hosts are inside:",
                "",
                "  java -javaagent:fastrmi-agent.jar[=config=FILE] ...",
                "",
                "The jar is also a command line:"},
            commandListHeading = "%nCommands:%n",
            footer = {"", "Exit codes: 0 done, 1 a check failed, 2 bad usage."})
    static final class Main implements Callable<Integer> {

        @Spec
        CommandSpec spec;

        /** No command: the usage, on standard output. */
        @Override
        public Integer call() {
            spec.commandLine().usage(spec.commandLine().getOut());
            return 0;
        }
    }

    @Command(name = "doctor", mixinStandardHelpOptions = true, sortOptions = false,
            header = "Prints what FastRMI would do in this JVM, and why.",
            description = {
                "Prints the JDK and the agent's version; the config as the agent would load it (--config, else"
                        + " -Dfastrmi.config, else FASTRMI_CONFIG, else the built-in defaults; -Dfastrmi.KEY and"
                        + " FASTRMI_KEY overrides applied), written back in the file's format; and the transports on"
                        + " this machine.",
                "With HOST:PORT: the effective policy for that host, then a real FastRMI offer to it, as RMI's client"
                        + " side makes it, and what comes of it: fast or plain, and why."},
            footer = {"", "Exit codes: 0 checked (fast or plain), 1 a bad config or a server that cannot be reached,"
                    + " 2 bad usage."})
    static final class DoctorCommand implements Callable<Integer> {

        private final AgentFacts agent;
        private final PrintWriter out;
        private final PrintWriter err;

        @Option(names = "--config", paramLabel = "FILE", description = "The config file (instead of -Dfastrmi.config or"
                + " FASTRMI_CONFIG).")
        Path config;

        @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
                description = "How long to wait for the connection and the server's answer (default: ${DEFAULT-VALUE}).")
        int timeoutSeconds;

        @Option(names = "--json", description = "Print one JSON object (a member per section) instead of text, for"
                + " scripts.")
        boolean json;

        @Parameters(arity = "0..1", paramLabel = "HOST:PORT", converter = EndpointConverter.class,
                description = "An RMI server (a registry port or an exported object's port) to negotiate with;"
                        + " an IPv6 address as [ADDRESS]:PORT.")
        Endpoint endpoint;

        @Spec
        CommandSpec spec;

        DoctorCommand(AgentFacts agent, PrintWriter out, PrintWriter err) {
            this.agent = agent;
            this.out = out;
            this.err = err;
        }

        @Override
        public Integer call() {
            if (timeoutSeconds < 1) {
                throw new CommandLine.ParameterException(spec.commandLine(),
                        "--timeout must be at least 1 second, not " + timeoutSeconds);
            }
            return new Doctor(agent, System.getProperties(), System.getenv(), out, err, json)
                    .run(Optional.ofNullable(config), Optional.ofNullable(endpoint), timeoutSeconds * 1000);
        }
    }

    static final class EndpointConverter implements CommandLine.ITypeConverter<Endpoint> {
        @Override
        public Endpoint convert(String value) {
            try {
                return Endpoint.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
