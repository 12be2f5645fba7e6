/**
 * Coordination of a group of processes that share memory, without a GPU: shared-memory segments,
 * the group's control block, a cross-process barrier, and process supervision. See {@link org.cudaipc4j.coord}.
 *
 * <p>libc is bound in {@code org.cudaipc4j.base}, which the project's libraries share; the removals at shutdown
 * ({@code org.cudaipc4j.coord.internal}) are internal. On the module path, run with
 * {@code --enable-native-access=org.cudaipc4j.base,org.cudaipc4j.coord}; on the class path,
 * {@code --enable-native-access=ALL-UNNAMED}.
 */
module org.cudaipc4j.coord {
    requires org.cudaipc4j.base;

    exports org.cudaipc4j.coord;
    exports org.cudaipc4j.coord.fd;
}
