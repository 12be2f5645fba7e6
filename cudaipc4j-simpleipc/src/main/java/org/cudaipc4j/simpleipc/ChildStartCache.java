package org.cudaipc4j.simpleipc;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;
import java.util.List;
import org.cudaipc4j.coord.JvmCommand;
import org.cudaipc4j.simpleipc.settings.SimpleIpcSettings;

/**
 * A JDK AOT cache (JEP 483/514) for the children when the parent was started without one, as by a plain
 * {@code java -jar cudaipc4j.jar}: the classes a child loads and links are then mapped at its start instead,
 * which shortens every child's JVM start, on the critical path of a run.
 *
 * <p>The cache lives in the user's cache folder ({@code $XDG_CACHE_HOME/cudaipc4j}, else {@code ~/.cache/cudaipc4j}),
 * one file per jar build, Java runtime and backend. When it is missing, child 0 of the run records one
 * ({@code -XX:AOTCacheOutput}) into a file of its own, which becomes the cache once the run passed: the first run of
 * a build pays for writing it at child 0's exit, later runs start faster. Nothing is done when the parent already
 * has a cache (the launcher's, which the children inherit), when the tool runs from class folders (tests), or with
 * {@code CUDAIPC4J_AOT=0}.
 */
final class ChildStartCache {
    private static final List<String> QUIET = List.of("-Xlog:aot=off", "-Xlog:cds=off");

    private final Path cache;
    private final Path recording;

    private ChildStartCache(Path cache, Path recording) {
        this.cache = cache;
        this.recording = recording;
    }

    /** The cache for children of {@code backend} runs, or null when there is none to use or make. */
    static ChildStartCache forBackend(String backend) {
        if (SimpleIpcSettings.NO_AOT.get()) {
            return null;
        }
        try {
            // The JVM records a cache for a class path of jars only: from class folders (tests) there is none to make,
            // even where this class itself comes from a jar.
            for (String entry : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
                if (!Files.isRegularFile(Path.of(entry))) {
                    return null;
                }
            }
            Path jar = Path.of(ChildStartCache.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return of(jar, cacheDirectory(), backend, JvmCommand.ownArguments());
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return null; // no cache: the children start as they would anyway
        }
    }

    /**
     * The cache in {@code dir} for children of a parent that runs {@code jar} with {@code parentArgs}; null when the
     * parent has a cache of its own (or trains one), when {@code jar} is not a jar, or when {@code dir} is unusable.
     */
    static ChildStartCache of(Path jar, Path dir, String backend, List<String> parentArgs) {
        if (parentArgs.stream().anyMatch(a -> a.startsWith("-XX:AOTCache") || a.startsWith("-XX:AOTMode"))) {
            return null; // the parent's own cache (or training) is the children's: JvmCommand passes it on
        }
        try {
            if (!Files.isRegularFile(jar)) {
                return null;
            }
            String key = jar.toRealPath() + "|" + Files.size(jar) + "|" + Files.getLastModifiedTime(jar).toMillis()
                    + "|" + Runtime.version() + "|" + System.getProperty("java.home") + "|" + backend;
            Path cache = dir.resolve("children-" + HexFormat.of().toHexDigits(key.hashCode()) + "-"
                    + HexFormat.of().toHexDigits((long) key.length()) + ".aot");
            if (Files.isRegularFile(cache)) {
                return new ChildStartCache(cache, null);
            }
            Files.createDirectories(dir);
            removeAbandonedRecordings(dir);
            return new ChildStartCache(cache, dir.resolve(cache.getFileName() + "." + ProcessHandle.current().pid()
                    + ".recording"));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Path cacheDirectory() {
        String xdg = SimpleIpcSettings.XDG_CACHE_HOME.get();
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("cudaipc4j");
    }

    /** JVM options for child {@code index}. */
    List<String> jvmOptions(int index) {
        if (recording == null) {
            return prepend("-XX:AOTCache=" + cache);
        }
        return index == 0 ? prepend("-XX:AOTCacheOutput=" + recording) : List.of();
    }

    /**
     * Whether child {@code index} records the cache: the JVM reports the recording on the child's output at exit,
     * not the tool's lines, so the child silences its output just before (its settings say so, see ProcessExit).
     */
    boolean quietExit(int index) {
        return recording != null && index == 0;
    }

    /** True while this run records the cache (its child 0 writes it at exit). */
    boolean recording() {
        return recording != null;
    }

    /** Caches of earlier builds: the newest {@value #KEEP} stay (other backends, other installations). */
    private void pruneOldCaches() throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(cache.getParent())) {
            List<Path> caches = files.filter(f -> f.getFileName().toString().matches("children-.*\\.aot"))
                    .sorted(java.util.Comparator.comparingLong(ChildStartCache::modified).reversed()).toList();
            for (Path old : caches.subList(Math.min(KEEP, caches.size()), caches.size())) {
                Files.deleteIfExists(old);
            }
        }
    }

    private static final int KEEP = 4;

    /** A recording and the JVM's configuration beside it, named after the parent that made them. */
    private static final java.util.regex.Pattern RECORDING =
            java.util.regex.Pattern.compile("children-.*\\.aot\\.([0-9]{1,10})\\.recording(\\.config)?");

    /**
     * Recordings whose parent has ended: a run ended by a signal never finished its recording ({@link #finish}), and
     * its files would stay in the user's cache folder. This user's only, by the rule of {@link TempLeftovers}.
     */
    static void removeAbandonedRecordings(Path dir) {
        TempLeftovers.sweep(dir, RECORDING);
    }

    private static long modified(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    private static List<String> prepend(String option) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(option), QUIET.stream()).toList();
    }

    /**
     * After the children have exited: a recording of a run that passed becomes the cache; any other is removed.
     */
    void finish(boolean passed) {
        if (recording == null) {
            return;
        }
        try {
            if (passed && Files.isRegularFile(recording) && Files.size(recording) > 0) {
                try {
                    Files.move(recording, cache, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(recording, cache, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Files.deleteIfExists(recording);
            // The JVM's intermediate configuration file, where one was left.
            Files.deleteIfExists(Path.of(recording + ".config"));
            pruneOldCaches();
            removeAbandonedRecordings(cache.getParent());
        } catch (IOException e) {
            // A cache is an optimisation: without it the next run records again.
        }
    }
}
