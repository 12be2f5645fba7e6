/**
 * The byte kernels simpleIPC ships as PTX (fill, fill with 16-byte stores, count mismatches), loaded into a context,
 * with their grid rules. Uses only {@code org.cudaipc4j.cuda}.
 */
package org.cudaipc4j.simpleipc.kernels;
