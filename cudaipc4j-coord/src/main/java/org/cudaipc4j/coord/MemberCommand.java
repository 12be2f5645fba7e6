package org.cudaipc4j.coord;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * One member's command line for {@link Supervisor#launch}, with what this member alone gets on top of the
 * supervisor's {@link Supervisor.Options}: environment variables (a rank's number), and a consumer of its standard
 * output lines in place of {@link Supervisor.Options#out()} (a program whose output is data, not text for the user).
 *
 * @param command     the command line
 * @param environment variables for this member, set after {@link Supervisor.Options#environment()}
 * @param outputLines takes each line of its standard output, on a thread of its own; null: as the options say
 */
public record MemberCommand(List<String> command, Map<String, String> environment, Consumer<String> outputLines) {
    /** Copies the command and the environment. */
    public MemberCommand {
        command = List.copyOf(command);
        environment = Map.copyOf(environment);
        if (command.isEmpty()) {
            throw new IllegalArgumentException("a member's command line must not be empty");
        }
    }

    /**
     * {@return {@code command} with nothing of its own}
     *
     * @param command the command line
     */
    public static MemberCommand of(List<String> command) {
        return new MemberCommand(command, Map.of(), null);
    }

    /**
     * {@return this command with {@code variables} as its own environment variables}
     *
     * @param variables the member's own variables
     */
    public MemberCommand withEnvironment(Map<String, String> variables) {
        return new MemberCommand(command, variables, outputLines);
    }

    /**
     * {@return this command with its standard output lines going to {@code lines}}
     *
     * @param lines takes each line, without its line end
     */
    public MemberCommand withOutputLines(Consumer<String> lines) {
        return new MemberCommand(command, environment, Objects.requireNonNull(lines, "lines"));
    }

    /**
     * This member's process builder: the options' environment, then its own, this process's pid as the member's
     * starter ({@link ParentWatch#starter}), and inherited streams where
     * {@code inherit} says the options' streams are this process's own and unprefixed.
     */
    ProcessBuilder processBuilder(Supervisor.Options options, boolean inherit) {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(options.environment());
        pb.environment().putAll(environment);
        pb.environment().put(CoordSettings.STARTER_PID.name(), Long.toString(Pids.self()));
        if (inherit) {
            pb.redirectError(ProcessBuilder.Redirect.INHERIT);
            if (outputLines == null) {
                pb.redirectOutput(ProcessBuilder.Redirect.INHERIT);
            }
        }
        return pb;
    }

    /** Starts copying what {@code process} (member {@code index}) writes that is not inherited. */
    void pumpOutput(Process process, int index, Supervisor.Options options, boolean inherit, List<OutputPump> to) {
        String prefix = options.prefixOutput() ? "[" + index + "] " : "";
        if (outputLines != null) {
            to.add(OutputPump.start(process.getInputStream(), outputLines, "out-" + index));
        } else if (!inherit) {
            to.add(OutputPump.start(process.getInputStream(), options.out(), prefix, "out-" + index));
        }
        if (!inherit) {
            to.add(OutputPump.start(process.getErrorStream(), options.err(), prefix, "err-" + index));
        }
    }
}
