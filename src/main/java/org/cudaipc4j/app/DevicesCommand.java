package org.cudaipc4j.app;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Lists CUDA devices, their IPC capability and the peer-access matrix. */
@Command(name = "devices", mixinStandardHelpOptions = true, description = "List CUDA devices and peer access.")
final class DevicesCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("cudaipc4j: devices is not implemented yet");
        return ExitCodes.FAILURE;
    }
}
