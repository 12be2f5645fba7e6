/**
 * simpleIPC's backend on real GPUs: devices prepared by the parent, one exported buffer and interprocess event per
 * child, the siblings' handles opened by each child.
 * Uses {@code org.cudaipc4j.cuda} and this module's {@code backend} and {@code kernels} packages.
 */
package org.cudaipc4j.simpleipc.cuda;
