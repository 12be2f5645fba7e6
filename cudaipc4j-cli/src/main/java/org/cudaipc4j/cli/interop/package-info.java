/**
 * {@code cudaipc4j interop}: commands a user can try on what Java and Python (torch) share. {@code describe} reads a
 * descriptor of format 1.0 or a torch storage handle (hex) and prints what it says, without a GPU; {@code open} maps
 * it and prints a sha256 per tensor. Uses {@code org.cudaipc4j.interop} (the parsers, torch's reader),
 * {@code org.cudaipc4j.cuda} and {@code org.cudaipc4j.coord}; never {@code org.cudaipc4j.cli}, which uses it.
 */
package org.cudaipc4j.cli.interop;
