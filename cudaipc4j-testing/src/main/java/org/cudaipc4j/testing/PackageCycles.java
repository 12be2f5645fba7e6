package org.cudaipc4j.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Package cycles among Java sources: which packages use one another in a circle, directly ({@code a} uses {@code b}
 * and {@code b} uses {@code a}) or through a longer loop ({@code a -> b -> c -> a}).
 *
 * <p>Read from the sources, not the class files, so that it sees what a reader sees: a package uses another when
 * one of its files imports a type or member of it ({@code import}, {@code import static}, {@code import p.*}) or
 * names one of its types in full ({@code org.example.p.Type}, in code, a string or a javadoc link). Only the packages
 * of the folders given count; {@code module-info.java} and {@code package-info.java} are left out, as a module's
 * and a package's overview may name any package.
 */
public final class PackageCycles {
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern IMPORT =
            Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+?)(?:\\.\\*)?\\s*;", Pattern.MULTILINE);
    /** A qualified name whose last part is a type: lower-case parts, then an upper-case one. */
    private static final Pattern QUALIFIED_TYPE = Pattern.compile("\\b([a-z_]\\w*(?:\\.[a-z_]\\w*)+)\\.[A-Z]\\w*");

    private PackageCycles() {}

    /**
     * The package cycles among the main sources under {@code sourceRoots} (folders such as
     * {@code cudaipc4j-cuda/src/main/java}), each as one line: its packages in order around the loop, each step
     * with the file and the name that makes it, e.g. {@code a -> b (X.java: b.Y) -> a (Y.java: a.X)}. Empty when
     * there is none.
     *
     * @throws IllegalArgumentException when a root is not a folder
     */
    public static List<String> find(List<Path> sourceRoots) {
        Map<String, Map<String, String>> uses = uses(sourceRoots);
        List<String> cycles = new ArrayList<>();
        for (Set<String> component : stronglyConnected(uses)) {
            cycles.add(describe(loopThrough(component, uses), uses));
        }
        return cycles;
    }

    /**
     * For each package under {@code sourceRoots}, the other packages there it uses, each with the first file and
     * name found that uses it ({@code "Y.java: a.X"}).
     */
    static Map<String, Map<String, String>> uses(List<Path> sourceRoots) {
        Map<Path, String> packageOf = new TreeMap<>();
        Map<Path, String> text = new HashMap<>();
        for (Path root : sourceRoots) {
            if (!Files.isDirectory(root)) {
                throw new IllegalArgumentException(root + " is not a folder of sources");
            }
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.filter(PackageCycles::isJavaSource).toList()) {
                    String source = Files.readString(file, StandardCharsets.UTF_8);
                    Matcher m = PACKAGE.matcher(source);
                    if (m.find()) {
                        packageOf.put(file, m.group(1));
                        text.put(file, source);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the sources under " + root, e);
            }
        }
        Set<String> packages = new TreeSet<>(packageOf.values());
        Map<String, Map<String, String>> uses = new TreeMap<>();
        packages.forEach(p -> uses.put(p, new TreeMap<>()));
        packageOf.forEach((file, from) -> {
            String source = text.get(file);
            List<String> names = new ArrayList<>();
            IMPORT.matcher(source).results().forEach(r -> names.add(r.group(1)));
            QUALIFIED_TYPE.matcher(source).results().forEach(r -> names.add(r.group(0)));
            for (String name : names) {
                String to = enclosingPackage(name, packages);
                if (to != null && !to.equals(from)) {
                    uses.get(from).putIfAbsent(to, file.getFileName() + ": " + name);
                }
            }
        });
        return uses;
    }

    private static boolean isJavaSource(Path file) {
        String name = file.getFileName().toString();
        return Files.isRegularFile(file) && name.endsWith(".java") && !name.equals("module-info.java")
                && !name.equals("package-info.java");
    }

    /** The longest of {@code packages} that {@code name} (a package, type or member) lies in, or null. */
    private static String enclosingPackage(String name, Set<String> packages) {
        for (String n = name; ; n = n.substring(0, n.lastIndexOf('.'))) {
            if (packages.contains(n)) {
                return n;
            }
            if (n.indexOf('.') < 0) {
                return null;
            }
        }
    }

    /** The strongly connected components of more than one package (Tarjan's algorithm, iterative). */
    private static List<Set<String>> stronglyConnected(Map<String, Map<String, String>> uses) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> components = new ArrayList<>();
        for (String start : uses.keySet()) {
            if (index.containsKey(start)) {
                continue;
            }
            // Each frame: a package and the iterator over what it uses.
            Deque<Map.Entry<String, Iterator<String>>> frames = new ArrayDeque<>();
            visit(start, index, low, stack, onStack);
            frames.push(Map.entry(start, uses.get(start).keySet().iterator()));
            while (!frames.isEmpty()) {
                String v = frames.peek().getKey();
                Iterator<String> next = frames.peek().getValue();
                if (next.hasNext()) {
                    String w = next.next();
                    if (!index.containsKey(w)) {
                        visit(w, index, low, stack, onStack);
                        frames.push(Map.entry(w, uses.get(w).keySet().iterator()));
                    } else if (onStack.contains(w)) {
                        low.put(v, Math.min(low.get(v), index.get(w)));
                    }
                    continue;
                }
                frames.pop();
                if (!frames.isEmpty()) {
                    String parent = frames.peek().getKey();
                    low.put(parent, Math.min(low.get(parent), low.get(v)));
                }
                if (low.get(v).equals(index.get(v))) {
                    Set<String> component = new TreeSet<>();
                    String w;
                    do {
                        w = stack.pop();
                        onStack.remove(w);
                        component.add(w);
                    } while (!w.equals(v));
                    if (component.size() > 1) {
                        components.add(component);
                    }
                }
            }
        }
        return components;
    }

    private static void visit(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
                              Set<String> onStack) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
    }

    /**
     * One loop through the first package of {@code component} back to itself, by the shortest path inside the
     * component (breadth first): the packages in order, the first repeated at the end.
     */
    private static List<String> loopThrough(Set<String> component, Map<String, Map<String, String>> uses) {
        String first = component.iterator().next();
        Map<String, String> cameFrom = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(first));
        while (!queue.isEmpty()) {
            String v = queue.poll();
            for (String w : uses.get(v).keySet()) {
                if (!component.contains(w)) {
                    continue;
                }
                if (w.equals(first)) {
                    List<String> loop = new ArrayList<>(List.of(first));
                    for (String p = v; !p.equals(first); p = cameFrom.get(p)) {
                        loop.add(1, p);
                    }
                    loop.add(first);
                    return loop;
                }
                if (!cameFrom.containsKey(w)) {
                    cameFrom.put(w, v);
                    queue.add(w);
                }
            }
        }
        throw new IllegalStateException("no loop through " + first + " in " + component);
    }

    private static String describe(List<String> loop, Map<String, Map<String, String>> uses) {
        StringBuilder line = new StringBuilder(loop.get(0));
        for (int i = 1; i < loop.size(); i++) {
            line.append(" -> ").append(loop.get(i))
                    .append(" (").append(uses.get(loop.get(i - 1)).get(loop.get(i))).append(')');
        }
        return line.toString();
    }
}
