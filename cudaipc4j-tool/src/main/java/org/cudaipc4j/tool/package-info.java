/**
 * The tool's runtime, shared by its applications: {@link org.cudaipc4j.tool.ExitCodes} (the codes the README
 * documents), {@link org.cudaipc4j.tool.Failures} (one line per failure), {@link org.cudaipc4j.tool.UsageException},
 * {@link org.cudaipc4j.tool.LineAtomicOutput} (whole lines from several processes on one pipe),
 * {@link org.cudaipc4j.tool.ProcessExit} (how a process of the tool ends) and {@link org.cudaipc4j.tool.Sizes}
 * (byte sizes and durations as options give them). Free of the command-line library, so that child processes load
 * none of it.
 */
package org.cudaipc4j.tool;
