/**
 * The environment variables and system properties the simpleIPC program reads
 * ({@link org.cudaipc4j.simpleipc.settings.SimpleIpcSettings}): a package of its own, below the program, its backends
 * and its rotation over NCCL, so that each reads them from one place.
 */
package org.cudaipc4j.simpleipc.settings;
