package org.cudaipc4j.simpleipc;

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
    boolean passed;

    private ChildGroup(ControlBlock block, PhaseFiles phaseFiles, Supervisor supervisor, FdDistribution fds,
            ChildStartCache startCache) {
        this.block = block;
        this.phaseFiles = phaseFiles;
        this.supervisor = supervisor;
        this.fds = fds;
        this.startCache = startCache;
    }

    /**
     * Starts {@code n} children on {@code backend}, then creates their block: the children get its name on
     * their command line and wait for it, so the block's creation overlaps their JVMs' start instead of
     * delaying it.
     */
    static ChildGroup start(SimpleIpcParent parent, int n, SimpleIpcOptions.BackendKind backend) {
        String name = ControlBlock.newName();
        PhaseFiles phaseFiles = null;
        Supervisor supervisor = null;
        ControlBlock block = null;
        FdDistribution fds = null;
        ChildStartCache startCache = ChildStartCache.forBackend(backend.optionName());
        try {
            phaseFiles = new PhaseFiles(parent.options.json() || parent.reportFile != null, name, n);
            fds = parent.options.ipc().passesFileDescriptors() ? FdDistribution.planned() : null;
            supervisor = new Supervisor(n, parent.supervisorOptions());
            List<List<String>> args = childArgs(parent.options, name, n, backend, phaseFiles,
                    fds == null ? null : fds.socket(), startCache);
            List<List<String>> commands = new ArrayList<>(n);
            List<String> base = JvmCommand.base();
            for (int i = 0; i < n; i++) {
                commands.add(JvmCommand.from(base, startCache == null ? List.of() : startCache.jvmOptions(i),
                        SimpleIpcChild.class.getName(), args.get(i)));
            }
            supervisor.start(commands);
            if (backend == SimpleIpcOptions.BackendKind.CUDA) {
                // A child that is killed, or ends with _exit, leaves the driver's /dev/shm files of its pid.
                for (long pid : supervisor.pids()) {
                    ProcessHandle.of(pid).ifPresent(h -> h.onExit().thenRun(() -> DriverFiles.removeOf(pid)));
                }
            }
            parent.phases.mark("childrenStarted");
            block = ControlBlock.create(name, n, SimpleIpcSlot.LAYOUT);
            SimpleIpcSlot.releaseCountersOnAbort(block);
            supervisor.watch(block);
            parent.phases.mark("blockCreated");
            if (fds != null) {
                // After the spawn and the block, which the children wait for; they connect once they have
                // joined. Only the group's own children are served.
                Supervisor members = supervisor;
                fds.listen(n, pid -> members.pids().contains(pid), parent.runDeadline);
            }
            return new ChildGroup(block, phaseFiles, supervisor, fds, startCache);
        } catch (RuntimeException e) {
            try {
                Closeables.closeAll(supervisor, fds, phaseFiles, block);
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
            Closeables.closeAll(supervisor, fds, phaseFiles, block);
        } finally {
            if (startCache != null) {
                startCache.finish(passed);
            }
        }
    }

    /**
     * The command-line arguments of each of {@code n} children: its index (so that a process list tells them apart)
     * and its {@link ChildSettings}, encoded.
     */
    private static List<List<String>> childArgs(SimpleIpcOptions options, String blockName, int n,
            SimpleIpcOptions.BackendKind backend, PhaseFiles phaseFiles, Path socket, ChildStartCache startCache) {
        List<List<String>> all = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            Path phaseFile = phaseFiles.enabled() ? phaseFiles.file(p) : null;
            boolean quiet = startCache != null && startCache.quietExit(p);
            all.add(new ChildSettings(p, blockName, backend, socket, phaseFile, options, quiet).arguments());
        }
        return all;
    }
}
