package org.cudaipc4j.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.cudaipc4j.bench.BenchCharts;
import org.cudaipc4j.tool.ExitCodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code cudaipc4j bench chart IN.json OUTDIR}: PNG charts from a bench.json written elsewhere. */
@Command(name = "chart", mixinStandardHelpOptions = true,
        description = "Render PNG charts from a bench.json (such as one written on a GPU machine).")
final class BenchChartCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "IN.json")
    Path in;

    @Parameters(index = "1", paramLabel = "OUTDIR")
    Path outDir;

    @Override
    public Integer call() {
        BenchCharts.renderInto(in, outDir);
        return ExitCodes.OK;
    }
}
