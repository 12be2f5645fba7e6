/**
 * simpleIPC's rotation over NCCL ({@code --transport nccl}): one rank per process, started by a cluster's launcher or
 * by the tool itself, each owner's buffer on its own GPU, the parts sent by NCCL.
 * Uses {@code org.cudaipc4j.nccl}, {@code org.cudaipc4j.cuda} and {@code org.cudaipc4j.coord} (supervision, the
 * watch on the process that started a rank).
 */
package org.cudaipc4j.simpleipc.nccl;
