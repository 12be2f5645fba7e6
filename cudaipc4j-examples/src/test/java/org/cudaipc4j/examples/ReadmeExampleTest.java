package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.cudaipc4j.cuda.Device;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's library example compiles against cudaipc4j-cuda alone, as a user would copy it. */
class ReadmeExampleTest {
    private static final String MARK = "<!-- library example: compiled against cudaipc4j-cuda alone by ReadmeExampleTest -->";

    @Test
    void theLibraryExampleCompilesAgainstTheCudaJarAlone(@TempDir Path tmp) throws IOException, URISyntaxException {
        Optional<Path> root = ProjectRoot.find();
        Assumptions.assumeTrue(root.isPresent(), "skipped: not run inside the project's checkout");
        String readme = Files.readString(root.get().resolve("README.md"));
        int at = readme.indexOf(MARK);
        assertTrue(at >= 0, "README.md has no marked library example");
        Matcher block = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        assertTrue(block.find(at), "no java block after the mark");
        String source = block.group(1);
        Matcher name = Pattern.compile("public (?:final )?class (\\w+)").matcher(source);
        assertTrue(name.find(), "the example declares no public class");
        Path file = tmp.resolve(name.group(1) + ".java");
        Files.writeString(file, source);

        Path cuda = Path.of(Device.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter diagnostics = new StringWriter();
        Boolean ok = javac.getTask(diagnostics, null, null,
                List.of("-classpath", cuda.toString(), "-d", tmp.resolve("classes").toString(), "-Xlint:all",
                        "-Werror", "-proc:none"),
                null, javac.getStandardFileManager(null, null, null).getJavaFileObjects(file)).call();
        assertTrue(ok, "the README's example does not compile against " + cuda + ":\n" + diagnostics);
        assertEquals("", diagnostics.toString().strip());
    }
}
