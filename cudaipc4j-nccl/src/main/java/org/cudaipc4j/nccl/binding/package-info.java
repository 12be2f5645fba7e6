/**
 * The raw NCCL binding (not exported): each function of {@code nccl.h} declared once, the library loaded by name or
 * path, {@code ncclConfig_t} and {@code ncclUniqueId} as memory layouts.
 * Uses only {@code java.base}.
 */
package org.cudaipc4j.nccl.binding;
