/**
 * simpleIPC's backend on real GPUs: devices prepared by the parent, one exported buffer and interprocess event per
 * child, the siblings' handles opened by each child.
 * Uses {@code org.cudaipc4j.cuda}, the tool's {@code kernels} and {@code org.cudaipc4j.tool.simpleipc}.
 */
package org.cudaipc4j.tool.simpleipc.cuda;
