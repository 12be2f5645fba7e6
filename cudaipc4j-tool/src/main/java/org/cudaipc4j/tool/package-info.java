/**
 * The {@code cudaipc4j} command line: the picocli commands (the simpleIPC run, {@code devices}, {@code bench},
 * {@code interop}, {@code nccl}), exit codes, one-line failures, line-atomic output and the launcher's AOT training.
 * Uses picocli, Gson, {@code org.cudaipc4j.cuda}, {@code org.cudaipc4j.coord} and the tool's packages.
 */
package org.cudaipc4j.tool;
