/**
 * What a simpleIPC backend is: {@link org.cudaipc4j.simpleipc.backend.Backend} (devices, exports, attachments), its
 * errors (each a {@link org.cudaipc4j.simpleipc.backend.BackendException}), the IPC modes, and byte sizes and
 * durations as the options write them.
 * Uses the JDK only; the backends ({@code cuda}, {@code host}) and the program build on it.
 */
package org.cudaipc4j.simpleipc.backend;
