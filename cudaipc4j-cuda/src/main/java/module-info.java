/**
 * The CUDA driver API ({@code libcuda.so.1}) through the Foreign Function &amp; Memory API, and typed CUDA resources
 * on top of it: {@link org.cudaipc4j.cuda.Device}, {@link org.cudaipc4j.cuda.Context},
 * {@link org.cudaipc4j.cuda.DeviceBuffer}, {@link org.cudaipc4j.cuda.Stream}, {@link org.cudaipc4j.cuda.Event},
 * {@link org.cudaipc4j.cuda.CudaModule}, {@link org.cudaipc4j.cuda.Kernel} and the IPC handles.
 *
 * <p>The raw bindings ({@code org.cudaipc4j.cuda.driver}) are internal; libc is bound in {@code org.cudaipc4j.base},
 * which the project's libraries share. On the module path, run with
 * {@code --enable-native-access=org.cudaipc4j.base,org.cudaipc4j.cuda}; on the class path,
 * {@code --enable-native-access=ALL-UNNAMED}.
 */
module org.cudaipc4j.cuda {
    requires org.cudaipc4j.base;

    exports org.cudaipc4j.cuda;
}
