/**
 * Benchmarks: end-to-end phases of simpleIPC runs, per-step and barrier latency, fill bandwidth through IPC-opened
 * pointers and NCCL, with medians over repeats, JSON results and PNG charts ({@link org.cudaipc4j.bench.Bench}).
 * Uses Gson, progressbar, JFreeChart, the libraries and
 * {@code org.cudaipc4j.simpleipc}; never {@code org.cudaipc4j.cli}.
 */
package org.cudaipc4j.bench;
