/**
 * Sharing GPU memory with other languages: the JSON descriptor of format 1.0 ({@link org.cudaipc4j.interop}), one
 * call that opens any descriptor ({@link org.cudaipc4j.interop.opening}), PyTorch's storage handles and its
 * reference-counter contract ({@link org.cudaipc4j.interop.torch}). See {@code docs/interop-format.md} (the format)
 * and {@code docs/interop-guide.md} (its use).
 *
 * <p>On the module path, run with
 * {@code --enable-native-access=org.cudaipc4j.base,org.cudaipc4j.cuda,org.cudaipc4j.coord} (the readers map through
 * {@code org.cudaipc4j.cuda}); the lease watcher is a JVM started with the java binary of this JVM and the locations
 * of this module, {@code org.cudaipc4j.coord} and {@code org.cudaipc4j.base}.
 */
module org.cudaipc4j.interop {
    requires org.cudaipc4j.cuda;
    requires org.cudaipc4j.coord;
    requires org.cudaipc4j.base;
    requires jdk.unsupported; // sun.misc.Signal: the lease watcher ignores the terminal's SIGINT

    exports org.cudaipc4j.interop;
    exports org.cudaipc4j.interop.opening;
    exports org.cudaipc4j.interop.torch;
}
