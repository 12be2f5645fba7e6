package org.cudaipc4j.cuda.ipc;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import org.cudaipc4j.base.WarmUpRounds;
import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.driver.CudaFunction;
import org.cudaipc4j.cuda.driver.DriverCalls;
import org.cudaipc4j.cuda.driver.IpcCalls;
import org.cudaipc4j.cuda.driver.StreamCalls;

/**
 * Runs the calls of {@link IpcMemHandle#open(Context, boolean)} and {@link IpcEventHandle#open(Context)} ahead of a
 * process's first opens, so that those do not run them for the first time: a fresh JVM's first calls through a
 * downcall run interpreted and cost tens of microseconds each until the JIT has compiled them. The driver refuses the
 * handle they are given (64 zero bytes, no process's), and the refusals are taken as results, not exceptions: a
 * refusal costs a few microseconds then, against tens with an exception made for each.
 */
public final class IpcOpenWarmUp {
    /** Rounds of the calls: enough for the JIT's optimizing tier to take them. */
    static final int ROUNDS = 4000;

    /** The time the rounds may take in all ({@link WarmUpRounds}): a driver may search before it refuses. */
    static final long BUDGET_NANOS = 100_000_000;

    private IpcOpenWarmUp() {}

    /**
     * Runs, up to {@value #ROUNDS} times, an IPC memory handle's open call, the size query an open makes and an IPC
     * event handle's open call, each refused by the driver, in {@code context} (made current). Were a call to succeed
     * all the same, what it opened is closed at once and the rounds stop.
     *
     * @param context the context the opens will map into
     * @return the rounds made
     */
    public static int run(Context context) {
        byte[] none = new byte[IpcMemHandle.SIZE];
        return WarmUpRounds.repeat(() -> round(context, none), ROUNDS, BUDGET_NANOS);
    }

    /** One round of the calls; false when the driver opened what it should have refused (closed again here). */
    static boolean round(Context context, byte[] none) {
        MemorySegment out = Checks.scratchOut();
        int memory = IpcMemHandle.openCall(context, none, true, out);
        long address = out.get(JAVA_LONG, 0);
        if (memory == CudaFunction.CUDA_SUCCESS) {
            IpcCalls.cuIpcCloseMemHandle(address);
            return false;
        }
        IpcMemHandle.sizeCall(0L, out);
        out.get(JAVA_LONG, 0);
        int event = IpcEventHandle.openCall(context, none, out);
        MemorySegment opened = DriverCalls.handle(out);
        if (event == CudaFunction.CUDA_SUCCESS) {
            StreamCalls.cuEventDestroy_v2(opened);
            return false;
        }
        return true;
    }
}
