package org.cudaipc4j.nccl;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemoryLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.cudaipc4j.nccl.binding.NcclFunction;
import org.cudaipc4j.nccl.binding.NcclLayouts;
import org.cudaipc4j.testing.Toolchain;
import org.cudaipc4j.testing.ToolchainTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binding against the machine's {@code nccl.h} ({@link Toolchain#ncclHeader()}): every
 * declaration's return and parameter types, and {@code ncclConfig_t}'s offsets and size as the C compiler lays
 * them out. No GPU needed: run wherever nccl.h is.
 */
@ToolchainTest(Toolchain.NCCL_H)
class NcclHeaderTest {
    @TempDir
    Path work;

    static Path header() {
        return Toolchain.ncclHeader();
    }

    /** The FFM layout a C type of nccl.h passes as. */
    static MemoryLayout layoutOf(String cType) {
        String t = cType.replace("const", "").replaceAll("\\s+", " ").strip();
        if (t.contains("*") || t.equals("ncclComm_t") || t.equals("cudaStream_t")) {
            return ADDRESS;
        }
        return switch (t) {
            case "int", "ncclResult_t", "ncclDataType_t", "ncclRedOp_t", "unsigned int" -> JAVA_INT;
            case "size_t" -> JAVA_LONG;
            case "ncclUniqueId" -> NcclLayouts.UNIQUE_ID;
            default -> throw new AssertionError("no mapping for C type '" + cType + "'");
        };
    }

    @Test
    void everyDeclarationMatchesTheHeader() throws IOException {
        String text = Files.readString(header()).replaceAll("/\\*.*?\\*/", " ").replaceAll("//[^\n]*", " ")
                .replaceAll("\\s+", " ");
        List<String> problems = new ArrayList<>();
        for (NcclFunction f : NcclFunction.values()) {
            Matcher m = Pattern.compile("([A-Za-z_][\\w ]*?\\**) ?\\b" + f.name() + " ?\\(([^)]*)\\) ?;").matcher(text);
            if (!m.find()) {
                problems.add(f.name() + ": not declared in nccl.h");
                continue;
            }
            String returns = m.group(1).replaceAll("^.*?;", "").strip();
            returns = returns.substring(Math.max(returns.lastIndexOf('}') + 1, 0)).strip();
            // the return type is the last one or two words before the name (e.g. "ncclResult_t", "const char*")
            String[] words = returns.split(" ");
            String returnType = words.length >= 2 && words[words.length - 2].equals("const")
                    ? "const " + words[words.length - 1] : words[words.length - 1];
            if (!layoutOf(returnType).equals(f.descriptor().returnLayout().orElseThrow())) {
                problems.add(f.name() + ": returns " + returnType);
            }
            List<MemoryLayout> expected = new ArrayList<>();
            String params = m.group(2).strip();
            if (!params.isEmpty() && !params.equals("void")) {
                for (String p : params.split(",")) {
                    String typ = p.strip().replaceAll("\\b\\w+$", "").strip(); // drop the parameter's name
                    expected.add(layoutOf(typ.isEmpty() ? p : typ));
                }
            }
            if (!expected.equals(f.descriptor().argumentLayouts())) {
                problems.add(f.name() + ": header (" + params + ") gives " + expected + ", binding has "
                        + f.descriptor().argumentLayouts());
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        System.out.println("nccl.h: " + NcclFunction.values().length + " declarations match");
    }

    @Test
    void configLayoutMatchesTheCompiler() throws Exception {
        Path source = work.resolve("config.c");
        Map<String, Long> ours = new LinkedHashMap<>();
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n#include <nccl.h>\nint main(void){\n");
        c.append("printf(\"sizeof %zu\\n\", sizeof(ncclConfig_t));\n");
        for (MemoryLayout field : NcclLayouts.CONFIG.memberLayouts()) {
            String name = field.name().orElse(null);
            if (name == null) {
                continue; // padding
            }
            ours.put(name, NcclLayouts.configOffset(name));
            c.append("printf(\"").append(name).append(" %zu\\n\", offsetof(ncclConfig_t, ").append(name).append("));\n");
        }
        c.append("ncclConfig_t init = NCCL_CONFIG_INITIALIZER;\n")
                .append("printf(\"initializer %u %u %d\\n\", init.magic, init.version, init.blocking);\n")
                .append("return 0;}\n");
        Files.writeString(source, c);
        Path exe = work.resolve("config");
        // nccl.h includes cuda_runtime.h: the toolkit's headers too
        String cudaHome = System.getenv().getOrDefault("CUDA_HOME", "/usr/local/cuda");
        Process cc = new ProcessBuilder("cc", "-I", header().getParent().toString(), "-I", cudaHome + "/include",
                "-o", exe.toString(), source.toString()).redirectErrorStream(true).start();
        String ccOut = new String(cc.getInputStream().readAllBytes());
        assertTrue(cc.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, cc.exitValue(), ccOut);
        Process run = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        String out = new String(run.getInputStream().readAllBytes());
        assertTrue(run.waitFor(30, TimeUnit.SECONDS));
        Map<String, Long> theirs = new LinkedHashMap<>();
        for (String line : out.strip().split("\n")) {
            String[] f = line.split(" ");
            if (f[0].equals("initializer")) {
                assertEquals(Integer.toUnsignedString(NcclLayouts.CONFIG_MAGIC), f[1], out);
                assertTrue(Integer.parseInt(f[2]) >= NcclLayouts.CONFIG_VERSION, "header older than 2.28: " + out);
                assertEquals(Integer.toString(NcclLayouts.UNDEFINED_INT), f[3], out);
                continue;
            }
            theirs.put(f[0], Long.parseLong(f[1]));
        }
        assertEquals(NcclLayouts.CONFIG.byteSize(), theirs.remove("sizeof"), "sizeof(ncclConfig_t): " + out);
        assertEquals(ours, theirs, out);
        System.out.println("ncclConfig_t: " + out.strip().replace('\n', ','));
    }
}
