package org.cudaipc4j.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the binding's checks need from the driver API's header {@code cuda.h}: the {@code CUresult} codes, the
 * functions it declares, and the {@code #define}s that rename an API name (such as
 * {@code cuMemAlloc -> cuMemAlloc_v2}). A copy made from the toolkit's header is committed as {@value #RESOURCE},
 * so the checks run where no toolkit is installed; {@code CudaHeaderTablesToolkitTest} compares it with the toolkit's
 * header wherever one is installed. To make it again: {@code java -cp <test classes>
 * org.cudaipc4j.cuda.CudaHeaderTables /path/to/cuda.h cudaipc4j-cuda/src/test/resources/org/cudaipc4j/cuda/cuda-h-tables.txt}.
 *
 * @param version   the header's {@code CUDA_VERSION}
 * @param results   each {@code CUresult} name with its code
 * @param functions the names declared as {@code CUresult CUDAAPI name(...)}
 * @param defines   each {@code #define cuX cuY} (also through {@code __CUDA_API_PTDS/PTSZ}) with {@code cuX != cuY}
 */
public record CudaHeaderTables(int version, Map<String, Integer> results, Set<String> functions,
        Map<String, String> defines) {
    /** The committed copy, a class path resource. */
    public static final String RESOURCE = "cuda-h-tables.txt";

    private static final Pattern VERSION = Pattern.compile("(?m)^#define CUDA_VERSION (\\d+)");
    private static final Pattern RESULT = Pattern.compile("(?m)^\\s*(CUDA_[A-Z0-9_]+)\\s*=\\s*(\\d+)");
    private static final Pattern DEFINE = Pattern.compile(
            "(?m)^\\s*#\\s*define\\s+(cu[A-Za-z0-9_]+)\\s+(?:__CUDA_API_PT(?:DS|SZ)\\(\\s*)?(cu[A-Za-z0-9_]+)");
    private static final Pattern FUNCTION = Pattern.compile("CUresult\\s+CUDAAPI\\s+(cu[A-Za-z0-9_]+)\\s*\\(");

    /** The tables of a {@code cuda.h} text. */
    public static CudaHeaderTables parse(String header) {
        Matcher v = VERSION.matcher(header);
        if (!v.find()) {
            throw new IllegalArgumentException("no #define CUDA_VERSION: not cuda.h");
        }
        int start = header.indexOf("typedef enum cudaError_enum");
        int end = header.indexOf("} CUresult;", Math.max(start, 0));
        if (start < 0 || end < 0) {
            throw new IllegalArgumentException("no CUresult enum: not cuda.h");
        }
        Map<String, Integer> results = new TreeMap<>();
        Matcher r = RESULT.matcher(header.substring(start, end));
        while (r.find()) {
            results.put(r.group(1), Integer.parseInt(r.group(2)));
        }
        Map<String, String> defines = new TreeMap<>();
        Matcher d = DEFINE.matcher(header);
        while (d.find()) {
            if (!d.group(1).equals(d.group(2))) {
                defines.put(d.group(1), d.group(2));
            }
        }
        Set<String> functions = new TreeSet<>();
        Matcher f = FUNCTION.matcher(header);
        while (f.find()) {
            functions.add(f.group(1));
        }
        return new CudaHeaderTables(Integer.parseInt(v.group(1)), results, functions, defines);
    }

    /** The committed copy. */
    public static CudaHeaderTables committed() {
        try (InputStream in = CudaHeaderTables.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " is missing from the test class path");
            }
            return read(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads what {@link #write()} wrote. */
    public static CudaHeaderTables read(String text) {
        int version = -1;
        Map<String, Integer> results = new TreeMap<>();
        Set<String> functions = new TreeSet<>();
        Map<String, String> defines = new TreeMap<>();
        for (String line : text.lines().toList()) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(" ");
            switch (f[0]) {
                case "version" -> version = Integer.parseInt(f[1]);
                case "result" -> results.put(f[1], Integer.parseInt(f[2]));
                case "function" -> functions.add(f[1]);
                case "define" -> defines.put(f[1], f[2]);
                default -> throw new IllegalArgumentException("unknown line in " + RESOURCE + ": " + line);
            }
        }
        return new CudaHeaderTables(version, results, functions, defines);
    }

    /** The text of the committed copy: one fact a line, sorted. */
    public String write() {
        StringBuilder b = new StringBuilder("# What the binding's checks read from cuda.h; see CudaHeaderTables.\n");
        b.append("version ").append(version).append('\n');
        results.entrySet().stream().sorted(Map.Entry.comparingByValue())
                .forEach(e -> b.append("result ").append(e.getKey()).append(' ').append(e.getValue()).append('\n'));
        functions.forEach(f -> b.append("function ").append(f).append('\n'));
        defines.forEach((k, v) -> b.append("define ").append(k).append(' ').append(v).append('\n'));
        return b.toString();
    }

    /** The name a call of {@code name} compiles to: {@code name} after the header's renaming defines. */
    public String mapped(String name) {
        return defines.getOrDefault(name, name);
    }

    /** {@code CUDA_H OUTPUT}: writes the tables of a header. */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: CudaHeaderTables CUDA_H OUTPUT");
            System.exit(64);
        }
        Files.writeString(Path.of(args[1]), parse(Files.readString(Path.of(args[0]))).write());
    }
}
