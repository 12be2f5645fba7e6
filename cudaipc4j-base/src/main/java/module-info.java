/**
 * The base the cudaipc4j libraries share (libc bound once, downcalls of a library that may lack a function, closing,
 * layout arithmetic, the declaration of a setting), internal to them: its package is exported to
 * the project's libraries only.
 * See {@link org.cudaipc4j.base}.
 *
 * <p>On the module path, run with {@code --enable-native-access=org.cudaipc4j.base} beside the libraries' own
 * modules; on the class path, {@code --enable-native-access=ALL-UNNAMED}.
 */
@SuppressWarnings("module") // the libraries it is exported to are built after it
module org.cudaipc4j.base {
    exports org.cudaipc4j.base to org.cudaipc4j.cuda, org.cudaipc4j.coord, org.cudaipc4j.launch, org.cudaipc4j.interop,
            org.cudaipc4j.nccl, org.cudaipc4j.tool, org.cudaipc4j.simpleipc, org.cudaipc4j.bench, org.cudaipc4j.cli,
            org.cudaipc4j.examples;
}
