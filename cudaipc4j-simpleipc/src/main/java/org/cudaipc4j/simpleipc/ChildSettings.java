package org.cudaipc4j.simpleipc;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.cudaipc4j.coord.RecordCodec;
import org.cudaipc4j.simpleipc.SimpleIpcOptions.BackendKind;
import org.cudaipc4j.tool.ProcessExit;

/**
 * What a simpleIPC child is told: the run's options as the parent parsed them, and its own place in the group, so
 * the child never parses an option string or reads a system property for them. It travels down the child's standard
 * input ({@link org.cudaipc4j.coord.Supervisor#startWithInput}) as one {@link RecordCodec} frame, written as soon as
 * the child is started; the control block's name follows as a {@link BlockName} once the block exists. Neither is on
 * the command line or in the environment, where any process could read the name and create the block first. The
 * child's only argument is its index, for process lists, and must agree with the settings.
 *
 * @param id the child's process index in the group
 * @param backend where the group runs: {@code CUDA} or {@code HOST} (never {@code AUTO}: the parent decided)
 * @param socket the socket the memory's file descriptors travel over, or null ({@code --ipc legacy})
 * @param phaseFile where the child writes its phase marks, or null
 * @param run the run's options
 * @param quietExit whether the child's JVM writes an AOT cache at exit ({@code -XX:AOTCacheOutput}), whose lines
 *                  about it are not the tool's: the child then points its standard output and error at
 *                  {@code /dev/null} just before it exits (see {@link ProcessExit#exit(int, boolean)})
 */
record ChildSettings(int id, BackendKind backend, Path socket, Path phaseFile, SimpleIpcOptions run,
        boolean quietExit) {
    static final String USAGE = "usage: SimpleIpcChild ID (its settings come from the simpleIPC parent's pipe)";
    /**
     * The settings' frame format. A class of its own: the parent names its children's arguments before it starts
     * them, and makes the format (reflection over the records) only once they are started, while their JVMs start.
     */
    static final class Frame {
        static final RecordCodec<ChildSettings> CODEC = RecordCodec.of(ChildSettings.class,
                c -> new ChildSettings(c.next(), c.next(), c.next(), c.next(), c.next(), c.next()),
                s -> new Object[] {s.id(), s.backend(), s.socket(), s.phaseFile(), s.run(), s.quietExit()},
                new RecordCodec.Nested<>(SimpleIpcOptions.class, c -> new SimpleIpcOptions(c.next(), c.next(),
                        c.next(), c.next(), c.next(), c.next(), c.next(), c.next(), c.next(), c.next(), c.next(),
                        c.next(), c.next(), c.next()), o -> new Object[] {o.bytes(), o.procsPerDevice(), o.devices(),
                        o.rounds(), o.backend(), o.simulatedDevices(), o.timeout(), o.json(), o.corruptProcess(),
                        o.kernel(), o.verify(), o.ipc(), o.sync(), o.hostWaitTimeout()}));

        private Frame() {}
    }

    ChildSettings {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(run, "run");
        if (backend == BackendKind.AUTO) {
            throw new IllegalArgumentException("a child runs on cuda or host, not auto");
        }
    }

    /** Settings of a child whose exit is not silenced (every child but the one recording the start-up cache). */
    ChildSettings(int id, BackendKind backend, Path socket, Path phaseFile, SimpleIpcOptions run) {
        this(id, backend, socket, phaseFile, run, false);
    }

    /** The child's command-line arguments: its index. */
    List<String> arguments() {
        return arguments(id);
    }

    /** The command-line arguments of child {@code id}: its index, all a command line tells. */
    static List<String> arguments(int id) {
        return List.of(Integer.toString(id));
    }

    /**
     * Checks the child's arguments against its settings. @throws IllegalArgumentException when they are not
     * {@link #arguments()}
     */
    void checkArguments(String[] args) {
        if (args.length != 1) {
            throw new IllegalArgumentException(USAGE);
        }
        if (!args[0].equals(Integer.toString(id))) {
            throw new IllegalArgumentException("child settings: index " + args[0] + " but settings of " + id);
        }
    }

    /**
     * The group's control block name, sent once the block exists.
     *
     * @param name the block's name
     */
    record BlockName(String name) {
        static final RecordCodec<BlockName> CODEC = RecordCodec.of(BlockName.class, c -> new BlockName(c.next()),
                b -> new Object[] {b.name()});

        BlockName {
            Objects.requireNonNull(name, "name");
        }
    }
}
