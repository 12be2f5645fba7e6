/**
 * Reading what PyTorch shares: a torch share mapped into a context, its storage's reference-counter slot held as a
 * lease and given back once, by a watcher process when the reader dies.
 * Uses {@code org.cudaipc4j.cuda}, {@code org.cudaipc4j.interop}, {@code org.cudaipc4j.coord} with its {@code fd}
 * package (segments, pidfds), and the libraries' base {@code org.cudaipc4j.base} (libc).
 */
package org.cudaipc4j.interop.torch;
