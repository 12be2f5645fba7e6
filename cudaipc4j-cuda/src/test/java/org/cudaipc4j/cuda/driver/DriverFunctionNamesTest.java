package org.cudaipc4j.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.cudaipc4j.testing.ProjectRoot;
import org.junit.jupiter.api.Test;

/**
 * Driver functions are named in the binding ({@link CudaFunction} and the classes of calls) and almost nowhere else:
 * code calls them through the binding's calls and names them through the declared constants, which carry the name
 * into every error. This reads the main sources of every module and counts the places outside the binding that name
 * a declared function: a string literal, or an identifier holding a declared name ({@code cu[A-Z]\w+}) that is not a
 * member selected with a dot ({@code MemoryCalls.cuMemAlloc_v2(...)} and {@code CudaFunction.cuMemAlloc_v2} are the
 * binding's own). A place is one statement or declaration (the code between two of {@code ; { }}); comments do not
 * count.
 *
 * <p>At most {@value #MAX_PLACES} places, each in a file {@linkplain #ALLOWED allowed} here with its reason:
 * <ul>
 *   <li>{@code DriverStartUp} (1): simpleIPC's own order of linking, which the application hands to the public
 *       {@code Cuda.prelinkInBackground} by name;</li>
 *   <li>{@code SimpleIpcParent} (1) and {@code EndToEndBench} (1): the start-up phase that simpleIPC's timings
 *       report, labelled after the call it waits for ({@code cuInit}), where it is marked and where it is read;</li>
 *   <li>{@code RootCommand} (1): the help of {@code --ipc}, which names a kind of memory by the call that makes it
 *       ({@code cuMemCreate}).</li>
 * </ul>
 * {@code cudaipc4j-testing} is not read: it decides whether a GPU test may run without the library (which it cannot
 * depend on, since the library's tests use it), so it links its two probing calls itself.
 */
class DriverFunctionNamesTest {
    static final int MAX_PLACES = 4;

    /** The files where a driver function may be named, with how many places each may have. */
    static final Map<String, Integer> ALLOWED = Map.of(
            "cudaipc4j-simpleipc/src/main/java/org/cudaipc4j/simpleipc/DriverStartUp.java", 1,
            "cudaipc4j-simpleipc/src/main/java/org/cudaipc4j/simpleipc/SimpleIpcParent.java", 1,
            "cudaipc4j-bench/src/main/java/org/cudaipc4j/bench/EndToEndBench.java", 1,
            "cudaipc4j-cli/src/main/java/org/cudaipc4j/cli/RootCommand.java", 1);

    /** The binding: the declarations and the classes of calls, which name every function. */
    static final String BINDING = "cudaipc4j-cuda/src/main/java/org/cudaipc4j/cuda/driver/";
    static final Set<String> BINDING_FILES = Set.of("CudaFunction.java", "DeviceCalls.java", "MemoryCalls.java",
            "VmmCalls.java", "PoolCalls.java", "StreamCalls.java", "IpcCalls.java", "ModuleCalls.java");
    static final Set<String> NOT_READ = Set.of("cudaipc4j-testing");

    private static final Pattern NAME = Pattern.compile("cu[A-Z]\\w+");

    /** One place: a statement of a file, and the declared names it holds. */
    record Place(String file, int line, List<String> names) {
        @Override
        public String toString() {
            return file + ":" + line + " " + names;
        }
    }

    @Test
    void atMostFivePlacesNameADriverFunctionOutsideItsDeclaration() {
        Path root = ProjectRoot.find().orElseThrow(
                () -> new IllegalStateException("the project's root is not above " + Path.of("").toAbsolutePath()));
        Set<String> declared = Stream.of(CudaFunction.values()).map(CudaFunction::name).collect(Collectors.toSet());
        List<Place> places = new ArrayList<>();
        for (Path file : mainSources(root)) {
            String relative = root.relativize(file).toString().replace('\\', '/');
            if (!(relative.startsWith(BINDING) && BINDING_FILES.contains(file.getFileName().toString()))) {
                places.addAll(places(relative, read(file), declared));
            }
        }
        Map<String, Integer> perFile = new TreeMap<>();
        places.forEach(p -> perFile.merge(p.file(), 1, Integer::sum));
        perFile.forEach((file, count) -> assertTrue(count <= ALLOWED.getOrDefault(file, 0),
                file + " names driver functions in " + count + " places (allowed: " + ALLOWED.getOrDefault(file, 0)
                        + "); call them through the binding: " + places));
        assertTrue(places.size() <= MAX_PLACES, places.size() + " places name driver functions: " + places);
        assertTrue(ALLOWED.values().stream().mapToInt(Integer::intValue).sum() <= MAX_PLACES);
        assertTrue(places.stream().anyMatch(p -> p.file().endsWith("/DriverStartUp.java")),
                "the reading finds names (it found " + places + ")");
    }

    @Test
    void readsLiteralsAndIdentifiersButNotComments() {
        Set<String> declared = Set.of("cuInit", "cuMemAlloc_v2");
        String source = """
                /** cuInit, in a comment. */
                class A {
                    // cuMemAlloc_v2
                    int cuInit = call("cuMemAlloc_v2(" + x + ")", 'c', "//");
                    String s = "cuMemAlloc"; String t = \"""
                        cuInit
                        \""";
                    void f() { g(cuDeviceGet); h(DeviceCalls.cuInit(0), CudaFunction . cuMemAlloc_v2); }
                }
                """;
        List<Place> places = places("A.java", source, declared);
        assertEquals(List.of(new Place("A.java", 4, List.of("cuInit", "cuMemAlloc_v2")),
                new Place("A.java", 5, List.of("cuInit"))), places);
    }

    private static List<Path> mainSources(Path root) {
        try (Stream<Path> modules = Files.list(root)) {
            List<Path> files = new ArrayList<>();
            for (Path module : modules.sorted().toList()) {
                Path main = module.resolve("src/main/java");
                if (Files.isDirectory(main) && !NOT_READ.contains(module.getFileName().toString())) {
                    try (Stream<Path> walk = Files.walk(main)) {
                        walk.filter(p -> p.toString().endsWith(".java")).sorted().forEach(files::add);
                    }
                }
            }
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The statements of {@code source} that hold a declared name, in a string literal or as an identifier. */
    static List<Place> places(String file, String source, Set<String> declared) {
        List<Place> places = new ArrayList<>();
        List<String> names = new ArrayList<>();
        int statementLine = 1;
        int line = 1;
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '\n') {
                line++;
                i++;
            } else if (source.startsWith("//", i)) {
                i = source.indexOf('\n', i) < 0 ? n : source.indexOf('\n', i);
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                line += count(source, i, end);
                i = end;
            } else if (c == '"' || c == '\'') {
                int start = i;
                boolean textBlock = source.startsWith("\"\"\"", i);
                String close = textBlock ? "\"\"\"" : String.valueOf(c);
                i += close.length();
                while (i < n && !source.startsWith(close, i)) {
                    i += source.charAt(i) == '\\' ? 2 : 1;
                }
                i = Math.min(n, i + close.length());
                if (names.isEmpty()) {
                    statementLine = line;
                }
                Matcher m = NAME.matcher(source.substring(start, i));
                while (m.find()) {
                    if (declared.contains(m.group())) {
                        names.add(m.group());
                    }
                }
                line += count(source, start, i);
            } else if (Character.isJavaIdentifierStart(c)) {
                int start = i;
                while (i < n && Character.isJavaIdentifierPart(source.charAt(i))) {
                    i++;
                }
                String word = source.substring(start, i);
                if (declared.contains(word) && !selected(source, start)) {
                    if (names.isEmpty()) {
                        statementLine = line;
                    }
                    names.add(word);
                }
            } else {
                if (c == ';' || c == '{' || c == '}') {
                    if (!names.isEmpty()) {
                        places.add(new Place(file, statementLine, List.copyOf(names)));
                        names.clear();
                    }
                }
                i++;
            }
        }
        if (!names.isEmpty()) {
            places.add(new Place(file, statementLine, List.copyOf(names)));
        }
        return places;
    }

    /** Whether the identifier at {@code start} is a member selected with a dot. */
    private static boolean selected(String source, int start) {
        int k = start - 1;
        while (k >= 0 && Character.isWhitespace(source.charAt(k))) {
            k--;
        }
        return k >= 0 && source.charAt(k) == '.';
    }

    private static int count(String s, int from, int to) {
        int lines = 0;
        for (int k = from; k < to; k++) {
            if (s.charAt(k) == '\n') {
                lines++;
            }
        }
        return lines;
    }
}
