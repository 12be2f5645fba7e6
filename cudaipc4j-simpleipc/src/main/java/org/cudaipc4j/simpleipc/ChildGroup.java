package org.cudaipc4j.simpleipc;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.coord.JvmCommand;
import org.cudaipc4j.coord.Supervisor;
import org.cudaipc4j.cuda.Closeables;
import org.cudaipc4j.cuda.ipc.DriverFiles;

/**
 * One group of children: their control block, phase-log folder, supervisor and (for {@code --ipc vmm|pool}) the
 * socket their memory's file descriptors travel over, closed together.
 */
final class ChildGroup implements AutoCloseable {
    final ControlBlock block;
    final PhaseFiles phaseFiles;
    final Supervisor supervisor;
    final FdDistribution fds;
    /** The children's AOT cache, or null; a recording of it is kept only when the run passed. */
    final ChildStartCache startCache;
    /** Each child's standard input: its settings, then the block's name. */
    private final Inputs inputs;
    boolean passed;

    private ChildGroup(ControlBlock block, PhaseFiles phaseFiles, Supervisor supervisor, FdDistribution fds,
            ChildStartCache startCache, Inputs inputs) {
        this.block = block;
        this.phaseFiles = phaseFiles;
        this.supervisor = supervisor;
        this.fds = fds;
        this.startCache = startCache;
        this.inputs = inputs;
    }

    /**
     * Starts {@code n} children on {@code backend}, opens their socket and sends their {@link ChildSettings}, then
     * creates their block and sends its name: the socket and the block are made while the children's JVMs start
     * instead of before, and each name reaches them (over their standard input, on no command line) once what it
     * names exists.
     */
    static ChildGroup start(SimpleIpcParent parent, int n, SimpleIpcOptions.BackendKind backend) {
        PhaseFiles phaseFiles = null;
        Supervisor supervisor = null;
        ControlBlock block = null;
        FdDistribution fds = null;
        Inputs inputs = null;
        ChildStartCache startCache = ChildStartCache.forBackend(backend.optionName());
        try {
            supervisor = new Supervisor(n, parent.supervisorOptions());
            List<List<String>> commands = new ArrayList<>(n);
            List<String> base = JvmCommand.base();
            for (int p = 0; p < n; p++) {
                commands.add(JvmCommand.from(base, startCache == null ? List.of() : startCache.jvmOptions(p),
                        SimpleIpcChild.class.getName(), ChildSettings.arguments(p)));
            }
            inputs = new Inputs(supervisor.startWithInput(commands));
            // Named only now: a parent killed before the spawn leaves nothing that no child would remove.
            phaseFiles = new PhaseFiles(parent.options.json() || parent.reportFile != null, n);
            fds = parent.options.ipc().passesFileDescriptors() ? FdDistribution.open() : null;
            for (ChildSettings s : settings(parent.options, n, backend, phaseFiles,
                    fds == null ? null : fds.socket(), startCache)) {
                inputs.send(s.id(), ChildSettings.Frame.CODEC.encode(s));
            }
            if (backend == SimpleIpcOptions.BackendKind.CUDA) {
                // A child that is killed, or ends with _exit, leaves the driver's /dev/shm files of its pid.
                for (long pid : supervisor.pids()) {
                    ProcessHandle.of(pid).ifPresent(h -> h.onExit().thenRun(() -> DriverFiles.removeOf(pid)));
                }
            }
            parent.phases.mark("childrenStarted");
            block = ControlBlock.create(n, SimpleIpcSlot.LAYOUT);
            inputs.sendAll(ChildSettings.BlockName.CODEC.encode(new ChildSettings.BlockName(block.name())));
            SimpleIpcSlot.releaseCountersOnAbort(block);
            supervisor.watch(block);
            parent.phases.mark("blockCreated");
            if (fds != null) {
                // The children connect once they have joined. Only the group's own children are served.
                Supervisor members = supervisor;
                fds.listen(n, pid -> members.pids().contains(pid), parent.runDeadline);
            }
            return new ChildGroup(block, phaseFiles, supervisor, fds, startCache, inputs);
        } catch (RuntimeException e) {
            try {
                Closeables.closeAll(supervisor, inputs, fds, phaseFiles, block);
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            if (startCache != null) {
                try {
                    startCache.finish(false);
                } catch (RuntimeException cleanup) {
                    e.addSuppressed(cleanup);
                }
            }
            throw e;
        }
    }

    /**
     * The children were started for a group that did not come to be. They hold nothing yet (no device, no
     * handle), so they are not waited for: dismissed, then killed and reaped by {@link #close()}.
     */
    void dismissAndClose() {
        try {
            block.dismiss();
        } finally {
            close();
        }
    }

    /**
     * Kills and reaps whatever child still runs, removes the socket and the phase logs, unlinks the block; keeps
     * the children's AOT cache recorded by a run that passed.
     */
    @Override
    public void close() {
        try {
            Closeables.closeAll(supervisor, inputs, fds, phaseFiles, block);
        } finally {
            if (startCache != null) {
                startCache.finish(passed);
            }
        }
    }

    /** The settings of each of {@code n} children. */
    private static List<ChildSettings> settings(SimpleIpcOptions options, int n, SimpleIpcOptions.BackendKind backend,
            PhaseFiles phaseFiles, Path socket, ChildStartCache startCache) {
        List<ChildSettings> all = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            Path phaseFile = phaseFiles.enabled() ? phaseFiles.file(p) : null;
            boolean quiet = startCache != null && startCache.quietExit(p);
            all.add(new ChildSettings(p, backend, socket, phaseFile, options, quiet));
        }
        return all;
    }

    /**
     * The children's standard inputs. A child that is gone cannot be written to: its exit is what the supervisor
     * reports, so the write's failure is not.
     */
    private record Inputs(List<OutputStream> streams) implements AutoCloseable {
        void send(int child, byte[] frame) {
            try {
                OutputStream out = streams.get(child);
                out.write(frame);
                out.flush();
            } catch (IOException gone) {
                // The supervisor reports the child's exit.
            }
        }

        void sendAll(byte[] frame) {
            for (int i = 0; i < streams.size(); i++) {
                send(i, frame);
            }
        }

        @Override
        public void close() {
            for (OutputStream out : streams) {
                try {
                    out.close();
                } catch (IOException gone) {
                    // As in send.
                }
            }
        }
    }
}
