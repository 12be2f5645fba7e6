package org.cudaipc4j.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CUDA toolkit of this machine, as the checks against it find it: {@code nvcc} on the {@code PATH} (or
 * {@code $NVCC}) and the folders its headers are in.
 */
public final class CudaToolkit {
    private static final Pattern INCLUDES = Pattern.compile("(?m)^#\\$ INCLUDES=\"-I([^\"]+)\"");

    private CudaToolkit() {}

    /** The nvcc command: {@code $NVCC} when set, as {@code scripts/build-ptx.sh} uses it, else {@code nvcc}. */
    public static String nvcc() {
        String nvcc = System.getenv("NVCC");
        return nvcc == null || nvcc.isBlank() ? "nvcc" : nvcc;
    }

    /** nvcc's release line ("Cuda compilation tools, release 13.0, V13.0.88"), or empty when nvcc does not run. */
    public static Optional<String> nvccRelease() {
        try {
            JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(60), List.of(nvcc(), "--version"));
            return r.exitCode() != 0 ? Optional.empty()
                    : r.stdout().lines().filter(l -> l.startsWith("Cuda compilation tools")).findFirst();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The folders searched for a toolkit header, in order: {@code $CUDA_HOME/include}, {@code $CUDA_PATH/include},
     * the include folder nvcc itself passes to the compiler (from {@code nvcc --dryrun}),
     * {@code /usr/local/cuda/include}.
     */
    public static List<Path> includeFolders() {
        Set<Path> folders = new LinkedHashSet<>();
        for (String variable : List.of("CUDA_HOME", "CUDA_PATH")) {
            String home = System.getenv(variable);
            if (home != null && !home.isBlank()) {
                folders.add(Path.of(home, "include"));
            }
        }
        try {
            Path empty = Files.createTempFile("cudaipc4j-empty", ".cu");
            try {
                JavaProcess.Result r = JavaProcess.runCommand(Duration.ofSeconds(60),
                        List.of(nvcc(), "--dryrun", "-E", empty.toString()));
                Matcher m = INCLUDES.matcher(r.stdout() + "\n" + r.stderr());
                if (m.find()) {
                    folders.add(Path.of(m.group(1)).normalize());
                }
            } finally {
                Files.deleteIfExists(empty);
            }
        } catch (java.io.IOException | RuntimeException e) {
            // no nvcc here: the other places remain
        }
        folders.add(Path.of("/usr/local/cuda/include"));
        return new ArrayList<>(folders);
    }

    /** The first {@code name} in {@link #includeFolders()}, or empty. */
    public static Optional<Path> header(String name) {
        return includeFolders().stream().map(f -> f.resolve(name)).filter(Files::isRegularFile).findFirst();
    }

    /** Why {@code name} was not found: the places tried and how to name another. */
    public static String headerMissing(String name) {
        return "no " + name + " in " + includeFolders() + ": install the CUDA toolkit, put its nvcc on the PATH"
                + " or set CUDA_HOME to its folder";
    }
}
