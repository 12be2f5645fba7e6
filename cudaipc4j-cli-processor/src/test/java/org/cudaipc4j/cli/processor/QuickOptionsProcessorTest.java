package org.cudaipc4j.cli.processor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The processor run on sample commands by the JDK's compiler, and the table it writes loaded and used. */
class QuickOptionsProcessorTest {
    @TempDir
    Path dir;

    private static final String CONVERTER = """
            package sample;
            public final class Upper implements picocli.CommandLine.ITypeConverter<String> {
                public String convert(String value) { return value.toUpperCase(); }
            }
            """;

    private record Compiled(boolean ok, String diagnostics, Path classes) {}

    private Compiled compile(String command) throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/sample"));
        Files.writeString(src.resolve("Upper.java"), CONVERTER);
        Files.writeString(src.resolve("Cmd.java"), command);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, null)) {
            JavaCompiler.CompilationTask task = javac.getTask(new StringWriter(), files, diagnostics,
                    List.of("-d", classes.toString(), "-s", classes.toString(),
                            "-classpath", System.getProperty("java.class.path")),
                    null, files.getJavaFileObjects(src.resolve("Upper.java"), src.resolve("Cmd.java")));
            task.setProcessors(List.of(new QuickOptionsProcessor()));
            boolean ok = task.call();
            StringBuilder text = new StringBuilder();
            diagnostics.getDiagnostics().forEach(d -> text.append(d.getMessage(null)).append('\n'));
            return new Compiled(ok, text.toString(), classes);
        }
    }

    @Test
    void writesATableThatNamesConvertsAndSetsEachOption() throws Exception {
        Compiled c = compile("""
                package sample;
                import picocli.CommandLine.Option;
                @org.cudaipc4j.cli.processor.QuickOptions
                public class Cmd {
                    @Option(names = {"-n", "--name"}, defaultValue = "a \\"b\\"", converter = Upper.class) String name;
                    @Option(names = "--count") int count = 1;
                    @Option(names = "--limit") Integer limit;
                    @Option(names = "--on") boolean on;
                    String notAnOption;
                }
                """);
        assertTrue(c.ok(), c.diagnostics());
        try (URLClassLoader loader = new URLClassLoader(new URL[] {c.classes().toUri().toURL()},
                getClass().getClassLoader())) {
            Class<?> table = loader.loadClass("sample.CmdQuickOptions");
            Class<?> cmd = loader.loadClass("sample.Cmd");
            assertArrayEquals(new String[] {"name", "count", "limit", "on"},
                    (String[]) read(table, "FIELDS", null));
            assertArrayEquals(new String[][] {{"-n", "--name"}, {"--count"}, {"--limit"}, {"--on"}},
                    (String[][]) read(table, "NAMES", null));
            assertArrayEquals(new String[] {"a \"b\"", null, null, null},
                    (String[]) read(table, "DEFAULT_VALUES", null));
            assertArrayEquals(new boolean[] {false, false, false, true},
                    (boolean[]) read(table, "FLAGS", null));
            Method converter = table.getDeclaredMethod("converter", int.class);
            converter.setAccessible(true);
            Object upper = converter.invoke(null, 0);
            assertEquals("sample.Upper", upper.getClass().getName());
            assertNull(converter.invoke(null, 1), "an int option has no converter");
            Method set = table.getDeclaredMethod("set", cmd, int.class, Object.class);
            set.setAccessible(true);
            var ctor = cmd.getDeclaredConstructor();
            Object command = ctor.newInstance();
            set.invoke(null, command, 0, "X");
            set.invoke(null, command, 1, 7);
            set.invoke(null, command, 2, 9);
            set.invoke(null, command, 3, Boolean.TRUE);
            assertEquals("X", read(cmd, "name", command));
            assertEquals(7, read(cmd, "count", command));
            assertEquals(9, read(cmd, "limit", command));
            assertEquals(true, read(cmd, "on", command));
        }
    }

    private static Object read(Class<?> type, String field, Object instance) throws ReflectiveOperationException {
        var f = type.getDeclaredField(field);
        f.setAccessible(true);
        return f.get(instance);
    }

    @Test
    void refusesAPrivateFieldAndAnOptionItCannotReadWithoutAConverter() throws IOException {
        Compiled hidden = compile("""
                package sample;
                @org.cudaipc4j.cli.processor.QuickOptions
                public class Cmd {
                    @picocli.CommandLine.Option(names = "--x") private int x;
                }
                """);
        assertFalse(hidden.ok());
        assertTrue(hidden.diagnostics().contains("option field x must be an instance field that the table can set:"
                + " not private, static or final"), hidden.diagnostics());
        Compiled text = compile("""
                package sample;
                @org.cudaipc4j.cli.processor.QuickOptions
                public class Cmd {
                    @picocli.CommandLine.Option(names = "--path") String path;
                }
                """);
        assertFalse(text.ok());
        assertTrue(text.diagnostics().contains("option field path (java.lang.String) needs a converter: without one"
                + " the table reads only flags and plain decimal integers"), text.diagnostics());
    }

    @Test
    void writesJavaStringLiterals() throws Exception {
        Compiled c = compile("""
                package sample;
                import picocli.CommandLine.Option;
                @org.cudaipc4j.cli.processor.QuickOptions
                public class Cmd {
                    @Option(names = "--text", defaultValue = "a\\\\b\\"c\\n\u00e9", converter = Upper.class) String text;
                    @Option(names = "--on") boolean on;
                }
                """);
        assertTrue(c.ok(), c.diagnostics());
        String source = Files.readString(c.classes().resolve("sample/CmdQuickOptions.java"));
        assertTrue(source.contains("\"a\\\\b\\\"c\\n\\u00e9\""), source);
        assertTrue(source.contains("        null,\n"), source);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {c.classes().toUri().toURL()},
                getClass().getClassLoader())) {
            assertArrayEquals(new String[] {"a\\b\"c\né", null},
                    (String[]) read(loader.loadClass("sample.CmdQuickOptions"), "DEFAULT_VALUES", null));
        }
    }
}
