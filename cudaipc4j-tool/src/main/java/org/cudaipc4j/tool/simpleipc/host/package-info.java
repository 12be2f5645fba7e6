/**
 * simpleIPC's backend without a GPU: devices, streams and events simulated in host shared memory with CUDA's
 * ordering, so the whole program runs on any machine.
 * Uses {@code org.cudaipc4j.coord} (with {@code fd}) and {@code org.cudaipc4j.tool.simpleipc}.
 */
package org.cudaipc4j.tool.simpleipc.host;
