package org.cudaipc4j.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Test;

class ExitCodesTest {
    /** A row of the README's table under "## Exit codes": {@code | 64 | usage error ... |}. */
    private static final Pattern ROW = Pattern.compile("^\\| (\\d+) \\|", Pattern.MULTILINE);

    /** Every command returns these constants, so they are what the README's table documents, and no other code. */
    @Test
    void theConstantsAreTheCodesTheReadmeDocuments() throws IOException {
        Path root = ProjectRoot.find().orElseThrow(() -> new AssertionError("not run inside the project's checkout"));
        String readme = Files.readString(root.resolve("README.md"));
        int start = readme.indexOf("\n## Exit codes\n");
        int end = readme.indexOf("\n## ", start + 1);
        Set<Integer> documented = new TreeSet<>();
        Matcher row = ROW.matcher(readme.substring(start, end));
        while (row.find()) {
            documented.add(Integer.parseInt(row.group(1)));
        }
        assertEquals(Set.of(ExitCodes.OK, ExitCodes.FAILURE, ExitCodes.WAIVED, ExitCodes.USAGE,
                ExitCodes.INTERRUPTED, ExitCodes.CLOSED_PIPE, ExitCodes.TERMINATED), documented);
        assertEquals(0, ExitCodes.OK);
        assertEquals(2, ExitCodes.WAIVED, "the sample's EXIT_WAIVED");
        assertEquals(130, ExitCodes.INTERRUPTED, "as a shell reports SIGINT");
        assertEquals(141, ExitCodes.CLOSED_PIPE, "as a shell reports SIGPIPE");
        assertEquals(143, ExitCodes.TERMINATED, "as a shell reports SIGTERM");
    }
}
