/**
 * The JSON descriptor of format 1.0 that Java and other languages share GPU memory by: its fields, reader and writer,
 * tensor layouts and dtypes, torch's handle bytes parsed, and the translation to and from the binary descriptor; and
 * what every reader of shared memory uses: the phases of an open ({@link org.cudaipc4j.interop.OpenPhases}), the wait
 * on the producer's event ({@link org.cudaipc4j.interop.ProducerEvent}, the package's one GPU call) and the
 * library's exception root ({@link org.cudaipc4j.interop.InteropException}). Opening a descriptor, any kind, is one
 * call, {@link org.cudaipc4j.interop.opening.Descriptors#open Descriptors.open} (its package shows an example).
 * Uses Gson's streaming reader and {@code org.cudaipc4j.cuda} (the binary descriptor, the event).
 */
package org.cudaipc4j.interop;
