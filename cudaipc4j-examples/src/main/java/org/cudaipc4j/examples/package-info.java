/**
 * Runnable examples of the libraries: two JVMs sharing a buffer and an event, a buffer handed to Python, a memory
 * pool shared with {@code cuda.core}, and the weight-sync pattern both ways (a PyTorch trainer and a Java server, a
 * Java trainer and a Python server).
 * Uses {@code org.cudaipc4j.cuda}, {@code org.cudaipc4j.coord} (with {@code fd}) and {@code org.cudaipc4j.interop}
 * (with {@code torch}).
 */
package org.cudaipc4j.examples;
