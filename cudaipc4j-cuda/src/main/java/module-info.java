/**
 * The CUDA driver API ({@code libcuda.so.1}) through the Foreign Function &amp; Memory API, in two exported packages.
 * {@code org.cudaipc4j.cuda} holds the typed CUDA resources: {@link org.cudaipc4j.cuda.Device},
 * {@link org.cudaipc4j.cuda.Context}, {@link org.cudaipc4j.cuda.DeviceBuffer}, {@link org.cudaipc4j.cuda.Stream},
 * {@link org.cudaipc4j.cuda.Event}, {@link org.cudaipc4j.cuda.CudaModule}, {@link org.cudaipc4j.cuda.Kernel}.
 * {@code org.cudaipc4j.cuda.ipc}, built on it, shares device memory and events between processes: the legacy IPC
 * handles ({@link org.cudaipc4j.cuda.ipc.IpcMemHandle}, {@link org.cudaipc4j.cuda.ipc.IpcEventHandle}), VMM
 * allocations and memory pools exported as file descriptors or fabric handles, the
 * {@link org.cudaipc4j.cuda.ipc.SharedMemoryDescriptor} that travels and the
 * {@link org.cudaipc4j.cuda.ipc.MemoryImporter} that maps it.
 *
 * <p>The raw bindings ({@code org.cudaipc4j.cuda.driver}) are internal, read only by the benchmarks' figure of the
 * driver's calls alone; libc is bound in {@code org.cudaipc4j.base},
 * which the project's libraries share. On the module path, run with
 * {@code --enable-native-access=org.cudaipc4j.base,org.cudaipc4j.cuda}; on the class path,
 * {@code --enable-native-access=ALL-UNNAMED}.
 */
@SuppressWarnings("module") // the benchmarks are built after it
module org.cudaipc4j.cuda {
    requires org.cudaipc4j.base;

    exports org.cudaipc4j.cuda;
    exports org.cudaipc4j.cuda.ipc;
    // bench interop --driver-only: the reader's driver calls alone, through the binding itself
    exports org.cudaipc4j.cuda.driver to org.cudaipc4j.bench;
}
