/**
 * simpleIPC's backend without a GPU: devices, streams and events simulated in host shared memory with CUDA's
 * ordering, so the whole program runs on any machine.
 * Uses {@code org.cudaipc4j.coord} (with {@code fd}) and this module's {@code backend} package.
 */
package org.cudaipc4j.simpleipc.host;
