package org.cudaipc4j.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** The tool's default command: the simpleIPC parent. */
@Command(name = "cudaipc4j", mixinStandardHelpOptions = true, version = "cudaipc4j 0.1.0",
        description = "Share GPU memory and CUDA events between processes (CUDA IPC); runs NVIDIA's simpleIPC by default.")
final class RootCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("cudaipc4j: simpleIPC is not wired in yet");
        return ExitCodes.FAILURE;
    }
}
