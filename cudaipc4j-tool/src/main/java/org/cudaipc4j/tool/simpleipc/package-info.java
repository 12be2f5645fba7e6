/**
 * simpleIPC, NVIDIA's sample ported: a parent and one child process per device that share buffers and interprocess
 * events, with its options, run report and phases; written once against {@link org.cudaipc4j.tool.simpleipc.Backend}.
 * Uses {@code org.cudaipc4j.cuda}, {@code org.cudaipc4j.coord} (with {@code fd}), Gson, its {@code cuda} and
 * {@code host} backends, and the tool's root package (exit codes, failures, output).
 */
package org.cudaipc4j.tool.simpleipc;
