/**
 * The {@code cudaipc4j} command line: thin picocli commands (the simpleIPC run, {@code devices}, {@code bench},
 * {@code interop}), their mapping to exit codes, the launcher's entry point ({@link org.cudaipc4j.cli.Main}) and its
 * AOT training. Uses picocli, Gson, the libraries, {@code org.cudaipc4j.simpleipc}, {@code org.cudaipc4j.bench} and
 * {@code cli.interop}; nothing below uses it.
 */
package org.cudaipc4j.cli;
