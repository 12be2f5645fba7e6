/**
 * simpleIPC, NVIDIA's sample ported: the parent, one child per device, the slot they share, run report and phases,
 * exit codes and one-line failures; written once against {@link org.cudaipc4j.simpleipc.backend.Backend}.
 * Uses {@code org.cudaipc4j.cuda}, {@code org.cudaipc4j.coord} (with {@code fd}), Gson and this module's
 * {@code backend}, {@code cuda}, {@code host} and {@code kernels} packages; never the command line above it.
 */
package org.cudaipc4j.simpleipc;
