/**
 * {@code cudaipc4j bench}: end-to-end phases of simpleIPC runs, per-step and barrier latency, fill bandwidth through
 * IPC-opened pointers, with medians over repeats, JSON reports and PNG charts.
 * Uses picocli, Gson, progressbar, JFreeChart, {@code org.cudaipc4j.cuda}, {@code org.cudaipc4j.coord} (with
 * {@code fd}), and the tool's {@code kernels}, {@code simpleipc} and root packages.
 */
package org.cudaipc4j.tool.bench;
