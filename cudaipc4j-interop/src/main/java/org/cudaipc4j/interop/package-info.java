/**
 * The JSON descriptor of format 1.0 that Java and other languages share GPU memory by: its fields, reader and writer,
 * tensor layouts and dtypes, torch's handle bytes parsed, and the translation to and from the binary descriptor.
 * Uses Gson's streaming reader and {@code org.cudaipc4j.cuda} (the binary descriptor); no GPU call.
 */
package org.cudaipc4j.interop;
