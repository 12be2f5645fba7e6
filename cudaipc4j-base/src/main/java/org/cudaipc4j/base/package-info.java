/**
 * What the project's libraries share, bound or written once: libc (each function declared once in
 * {@code LibcFunction} and linked on first use; the calls by area in {@link org.cudaipc4j.base.Libc},
 * {@link org.cudaipc4j.base.LibcFiles}, {@link org.cudaipc4j.base.LibcSockets},
 * {@link org.cudaipc4j.base.LibcProcesses} and {@link org.cudaipc4j.base.LibcFutex}), the downcalls of a library
 * loaded at run time that may lack a function ({@link org.cudaipc4j.base.Downcalls}), closing several resources
 * ({@link org.cudaipc4j.base.Closing}), layout arithmetic ({@link org.cudaipc4j.base.Layouts}) and the declaration
 * of an environment variable or system property that the libraries read ({@link org.cudaipc4j.base.Setting}).
 * Internal: exported only to the project's libraries; uses only {@code java.base}.
 */
package org.cudaipc4j.base;
