package org.cudaipc4j.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.cudaipc4j.bench.BenchCharts;
import org.cudaipc4j.tool.ExitCodes;
import org.cudaipc4j.tool.UsageException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code cudaipc4j bench chart IN.json --out DIR}: PNG charts from a bench.json written elsewhere. The folder is
 * named as {@code bench} names its own ({@code --out}); the older positional form {@code IN.json OUTDIR} stays.
 */
@Command(name = "chart", mixinStandardHelpOptions = true,
        description = "Render PNG charts from a bench.json (such as one written on a GPU machine).")
final class BenchChartCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "IN.json",
            description = "The bench.json that 'cudaipc4j bench --out DIR' wrote.")
    Path in;

    @Parameters(index = "1", arity = "0..1", paramLabel = "OUTDIR",
            description = "The folder to draw into, as --out (give one of the two).")
    Path outDir;

    @Option(names = "--out", paramLabel = "DIR",
            description = "The folder to draw into (made if missing), as for bench.")
    Path out;

    @Override
    public Integer call() {
        if (out != null && outDir != null && !out.equals(outDir)) {
            throw new UsageException("bench chart: give the folder once, as --out DIR or as OUTDIR");
        }
        Path dir = out != null ? out : outDir;
        if (dir == null) {
            throw new UsageException("bench chart: no folder to draw into: give --out DIR");
        }
        BenchCharts.renderInto(in, dir);
        return ExitCodes.OK;
    }
}
