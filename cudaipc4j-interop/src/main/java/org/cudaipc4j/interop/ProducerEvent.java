package org.cudaipc4j.interop;

import org.cudaipc4j.cuda.Context;
import org.cudaipc4j.cuda.Stream;
import org.cudaipc4j.cuda.ipc.IpcEventHandle;

/**
 * The event a producer recorded after its last write before sharing: a reader's stream waits on it before reading
 * the shared memory. The one way both readers (a descriptor's open and torch's reader) make that wait.
 */
public final class ProducerEvent {
    private ProducerEvent() {}

    /**
     * Makes {@code stream} wait on the producer's event: opened ({@code cuIpcOpenEventHandle}), waited on
     * ({@code cuStreamWaitEvent}) and destroyed; the wait stays queued on the stream, so nothing blocks here.
     *
     * @param context the reader's context
     * @param stream the stream that will read the shared memory
     * @param ipcEventHandle the event's 64-byte {@code CUipcEventHandle}
     * @param phases where the three steps' times are added, or null
     * @throws org.cudaipc4j.cuda.CudaException when the driver refuses the event (a producer gone, another device)
     */
    public static void queueWait(Context context, Stream stream, byte[] ipcEventHandle, OpenPhases phases) {
        IpcEventHandle handle = IpcEventHandle.fromBytes(ipcEventHandle);
        if (phases == null) {
            handle.queueWait(context, stream, null);
            return;
        }
        long[] stamps = new long[2];
        handle.queueWait(context, stream, stamps);
        phases.lapAt(OpenPhases.Phase.EVENT_OPEN, stamps[0]);
        phases.lapAt(OpenPhases.Phase.EVENT_WAIT, stamps[1]);
        phases.lap(OpenPhases.Phase.EVENT_DESTROY);
    }
}
