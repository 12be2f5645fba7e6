package org.cudaipc4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;
import org.cudaipc4j.coord.ControlBlock;
import org.cudaipc4j.cuda.Device;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The published library jars as a user's build resolves them (the reactor hands this module the packaged jars):
 * nothing but the JDK's {@code java.base} and the project's own libraries is needed, no third-party class is inside,
 * the module exports its API packages only (the shared base none but to the project's own modules), and the license travels
 * with the classes.
 */
class LibraryJarsTest {
    /** Every module of the project with main code: the libraries and the applications. */
    private static final Set<String> PROJECT_MODULES = Set.of("org.cudaipc4j.base", "org.cudaipc4j.cuda",
            "org.cudaipc4j.coord", "org.cudaipc4j.launch", "org.cudaipc4j.interop", "org.cudaipc4j.nccl",
            "org.cudaipc4j.tool", "org.cudaipc4j.simpleipc", "org.cudaipc4j.bench", "org.cudaipc4j.cli",
            "org.cudaipc4j.examples");
    private static final Set<String> LIBRARY_MODULES = Set.of("org.cudaipc4j.base", "org.cudaipc4j.cuda",
            "org.cudaipc4j.coord", "org.cudaipc4j.launch", "org.cudaipc4j.interop", "org.cudaipc4j.nccl");

    private static Path jarOf(String library) {
        Class<?> probe = switch (library) {
            case "cuda" -> Device.class;
            case "nccl" -> org.cudaipc4j.nccl.Nccl.class;
            case "launch" -> org.cudaipc4j.launch.Rendezvous.class;
            case "base" -> org.cudaipc4j.base.Libc.class;
            default -> ControlBlock.class;
        };
        try {
            return Path.of(probe.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Path requireJar(String library) {
        Path jar = jarOf(library);
        Assumptions.assumeTrue(Files.isRegularFile(jar),
                () -> "skipped: cudaipc4j-" + library + " comes from " + jar + ", not a packaged jar (run mvn verify)");
        return jar;
    }

    /** What jdeps says {@code library} needs, one line per module, sorted; the others' jars on the module path. */
    private static List<String> jdeps(String library, String... others) {
        Path jar = requireJar(library);
        List<String> args = new ArrayList<>();
        if (others.length > 0) {
            args.add("--module-path");
            args.add(Arrays.stream(others).map(o -> requireJar(o).toString())
                    .collect(Collectors.joining(File.pathSeparator)));
        }
        args.addAll(List.of("-s", jar.toString()));
        StringWriter out = new StringWriter();
        int rc = ToolProvider.findFirst("jdeps").orElseThrow()
                .run(new PrintWriter(out), new PrintWriter(out), args.toArray(String[]::new));
        assertEquals(0, rc, out.toString());
        return out.toString().lines().filter(l -> !l.isBlank()).sorted().toList();
    }

    @org.junit.jupiter.api.Test
    void baseNeedsOnlyJavaBase() {
        assertEquals(List.of("org.cudaipc4j.base -> java.base"), jdeps("base"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"cuda", "coord"})
    void needsOnlyJavaBaseAndTheSharedBase(String library) {
        String module = "org.cudaipc4j." + library;
        assertEquals(List.of(module + " -> java.base", module + " -> org.cudaipc4j.base"), jdeps(library, "base"));
    }

    @org.junit.jupiter.api.Test
    void launchNeedsOnlyJavaBaseTheSharedBaseAndTheCoordinationLibrary() {
        assertEquals(List.of("org.cudaipc4j.launch -> java.base", "org.cudaipc4j.launch -> org.cudaipc4j.base",
                "org.cudaipc4j.launch -> org.cudaipc4j.coord"), jdeps("launch", "coord", "base"));
    }

    @org.junit.jupiter.api.Test
    void ncclNeedsOnlyJavaBaseTheSharedBaseAndTheCudaLaunchAndCoordinationLibraries() {
        assertEquals(List.of("org.cudaipc4j.nccl -> java.base", "org.cudaipc4j.nccl -> org.cudaipc4j.base",
                "org.cudaipc4j.nccl -> org.cudaipc4j.coord", "org.cudaipc4j.nccl -> org.cudaipc4j.cuda",
                "org.cudaipc4j.nccl -> org.cudaipc4j.launch"), jdeps("nccl", "cuda", "launch", "coord", "base"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"base", "cuda", "coord", "launch", "nccl"})
    void holdsOnlyItsOwnClassesAndTheLicense(String library) throws IOException {
        Path jar = requireJar(library);
        List<String> foreign = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            file.stream().map(e -> e.getName()).filter(n -> !n.endsWith("/"))
                    .filter(n -> !n.startsWith("org/cudaipc4j/" + library + "/") && !n.startsWith("META-INF/")
                            && !n.equals("module-info.class"))
                    .forEach(foreign::add);
            assertTrue(file.getEntry("META-INF/LICENSE") != null, "no META-INF/LICENSE in " + jar);
        }
        assertEquals(List.of(), foreign, "entries of " + jar + " outside its own packages");
    }

    @ParameterizedTest
    @ValueSource(strings = {"base", "cuda", "coord", "launch", "nccl"})
    void exportsItsApiPackageOnly(String library) {
        Path jar = requireJar(library);
        ModuleDescriptor module = ModuleFinder.of(jar).findAll().iterator().next().descriptor();
        assertEquals("org.cudaipc4j." + library, module.name());
        Set<String> exported = module.exports().stream().filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        Set<String> api = switch (library) {
            case "coord" -> Set.of("org.cudaipc4j.coord", "org.cudaipc4j.coord.fd");
            case "launch" -> Set.of("org.cudaipc4j.launch");
            case "nccl" -> Set.of("org.cudaipc4j.nccl");
            case "cuda" -> Set.of("org.cudaipc4j.cuda", "org.cudaipc4j.cuda.ipc");
            case "base" -> Set.of();
            default -> throw new IllegalArgumentException(library);
        };
        assertEquals(api, exported, "exports: the API packages, never the bindings");
        // Internal packages reach the project's other libraries only, never an application, but for the driver
        // binding that the bench's figure of the driver's calls alone calls directly, and base's declaration of a
        // setting, through which the applications read theirs too.
        module.exports().stream().filter(ModuleDescriptor.Exports::isQualified).forEach(e -> assertTrue(
                LIBRARY_MODULES.containsAll(e.targets()) || e.source().equals("org.cudaipc4j.cuda.driver")
                        && e.targets().equals(Set.of("org.cudaipc4j.bench"))
                        || e.source().equals("org.cudaipc4j.base") && PROJECT_MODULES.containsAll(e.targets()),
                "a qualified export to a library of the project only: " + e));
        Set<String> requires = switch (library) {
            case "base" -> Set.of("java.base");
            case "launch" -> Set.of("java.base", "org.cudaipc4j.base", "org.cudaipc4j.coord");
            case "nccl" -> Set.of("java.base", "org.cudaipc4j.base", "org.cudaipc4j.coord", "org.cudaipc4j.cuda",
                    "org.cudaipc4j.launch");
            default -> Set.of("java.base", "org.cudaipc4j.base");
        };
        assertEquals(requires,
                module.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet()),
                "requires");
    }

    /** base is internal: exported to the project's own modules by name (its setting type reaches the applications). */
    @org.junit.jupiter.api.Test
    void baseIsExportedToTheProjectsModulesOnly() {
        ModuleDescriptor module = ModuleFinder.of(requireJar("base")).findAll().iterator().next().descriptor();
        assertEquals(Set.of("org.cudaipc4j.base"),
                module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
        module.exports().forEach(e -> assertEquals(Set.of("org.cudaipc4j.cuda", "org.cudaipc4j.coord",
                "org.cudaipc4j.launch", "org.cudaipc4j.interop", "org.cudaipc4j.nccl", "org.cudaipc4j.tool",
                "org.cudaipc4j.simpleipc", "org.cudaipc4j.bench", "org.cudaipc4j.cli", "org.cudaipc4j.examples"),
                e.targets(), "exported to: " + e));
    }
}
