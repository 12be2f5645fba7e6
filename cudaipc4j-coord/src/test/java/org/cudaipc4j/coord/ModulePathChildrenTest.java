package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.spi.ToolProvider;
import org.cudaipc4j.testing.JavaProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Children of an application that runs on the module path: a tiny modular application, compiled here against this
 * module's classes, starts its children through {@link Supervisor#start(String, List)}; they run in its module and
 * join the group. A main class the children could not find is refused at once, before any child starts.
 */
class ModulePathChildrenTest {
    private static final String MODULE_INFO = """
            module app {
                requires org.cudaipc4j.coord;
            }
            """;
    /** Starts one child per argument, each in a group of its own, and reports what happened, one line each. */
    private static final String PARENT = """
            package app;

            import java.time.Duration;
            import java.util.List;
import java.util.spi.ToolProvider;
            import org.cudaipc4j.coord.ControlBlock;
            import org.cudaipc4j.coord.CoordinationException;
            import org.cudaipc4j.coord.Supervisor;

            public final class Parent {
                public static void main(String[] args) {
                    for (String mainClass : args) {
                        try (ControlBlock block = ControlBlock.create(1, ControlBlock.NO_SLOT_DATA);
                             Supervisor sv = new Supervisor(block, Supervisor.Options.defaults())) {
                            try {
                                sv.start(mainClass, List.of(List.of(block.name())));
                            } catch (CoordinationException e) {
                                System.out.println(mainClass + " refused, " + sv.pids().size() + " started: "
                                        + e.getMessage());
                                continue;
                            }
                            Supervisor.Outcome outcome = sv.awaitAll(Duration.ofSeconds(60));
                            System.out.println(mainClass + " outcome " + outcome.ok() + " " + outcome.exitCodes());
                        }
                    }
                }
            }
            """;
    /** Joins slot 0 of the parent's group (which fails unless that parent created it) and says from where. */
    private static final String CHILD = """
            package app;

            import org.cudaipc4j.coord.ChildRuntime;
            import org.cudaipc4j.coord.ControlBlock;

            public final class Child {
                public static void main(String[] args) {
                    try (ChildRuntime rt = ChildRuntime.join(args[0], ControlBlock.NO_SLOT_DATA, 0)) {
                        System.out.println("child in module " + Child.class.getModule().getName() + " joined slot "
                                + rt.index() + " of pid " + rt.parentPid());
                    }
                }
            }
            """;

    @TempDir
    Path dir;

    /** This module's classes and those of the module it requires (org.cudaipc4j.base), as a module path. */
    private static String coordModule() throws URISyntaxException {
        return Path.of(ControlBlock.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                + File.pathSeparator
                + Path.of(org.cudaipc4j.base.Closing.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** Compiles the application into {@code mods/app}; returns the module path: this module's classes, then it. */
    private String compileApp() throws Exception {
        Path src = dir.resolve("src/app");
        Files.createDirectories(src.resolve("app"));
        Files.writeString(src.resolve("module-info.java"), MODULE_INFO);
        Files.writeString(src.resolve("app/Parent.java"), PARENT);
        Files.writeString(src.resolve("app/Child.java"), CHILD);
        Path out = dir.resolve("mods/app");
        StringWriter errors = new StringWriter();
        int rc = ToolProvider.findFirst("javac").orElseThrow().run(new PrintWriter(errors), new PrintWriter(errors),
                "-d", out.toString(), "--module-path", coordModule(),
                src.resolve("module-info.java").toString(), src.resolve("app/Parent.java").toString(),
                src.resolve("app/Child.java").toString());
        assertEquals(0, rc, errors.toString());
        return coordModule() + File.pathSeparator + dir.resolve("mods");
    }

    private JavaProcess.Result runParent(String modulePath, String... mainClasses) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String shm = System.getProperty(CoordSettings.SHM_DIR.name());
        if (shm != null) {
            cmd.add("-D" + CoordSettings.SHM_DIR.name() + "=" + shm);
        }
        cmd.addAll(List.of("--enable-native-access=org.cudaipc4j.coord,org.cudaipc4j.base", "-p", modulePath, "-m", "app/app.Parent"));
        cmd.addAll(List.of(mainClasses));
        return JavaProcess.runCommand(Duration.ofSeconds(120), cmd);
    }

    @Test
    void childrenOfAModularApplicationRunInItsModuleAndJoinTheGroup() throws Exception {
        JavaProcess.Result r = runParent(compileApp(), "app.Child", "app/app.Child");
        assertEquals(0, r.exitCode(), r.describe());
        List<String> lines = r.stdout().lines().toList();
        String joined = "[0] child in module app joined slot 0 of pid " + r.pid();
        assertEquals(List.of(joined, "app.Child outcome true [0]", joined, "app/app.Child outcome true [0]"), lines,
                r.describe());
        assertFalse(r.stderr().contains("Could not find or load main class"), r.describe());
    }

    @Test
    void aMainClassTheChildrenCouldNotFindIsRefusedBeforeAnyStarts() throws Exception {
        String modulePath = compileApp();
        JavaProcess.Result r = runParent(modulePath, "app.NoSuchChild", "nosuch/app.Child");
        assertEquals(0, r.exitCode(), r.describe());
        assertEquals(List.of("app.NoSuchChild refused, 0 started: cannot start a child with main class"
                        + " app.NoSuchChild: this JVM runs on the module path and cannot load it to find its module;"
                        + " name its module as 'module/app.NoSuchChild'",
                "nosuch/app.Child refused, 0 started: cannot start a child in module 'nosuch': it is not on the"
                        + " module path (" + modulePath + ")"),
                r.stdout().lines().toList(), r.describe());
    }

    @Test
    void aModuleNamedOnTheClassPathIsRefused() {
        List<String> base = List.of("java", "--enable-native-access=ALL-UNNAMED", "-cp", "a.jar");
        CoordinationException e = assertThrows(CoordinationException.class,
                () -> JvmCommand.from(base, List.of(), "app/app.Child", List.of()));
        assertEquals("cannot start a child with main class app/app.Child: it names module 'app', but this JVM runs"
                + " on the class path (no --module-path); run it on the module path, or name the class alone",
                e.getMessage());
        assertEquals(List.of("java", "--enable-native-access=ALL-UNNAMED", "-cp", "a.jar", "x.Main", "a"),
                JvmCommand.from(base, List.of(), "x.Main", List.of("a")), "the class path alone is as before");
    }

    @Test
    void onTheModulePathAClassIsStartedThroughItsModule() throws IOException {
        Path empty = Files.createDirectories(dir.resolve("empty"));
        List<String> base = List.of("java", ModulePath.OPTION, empty.toString(), "-cp", "");
        assertEquals(List.of("-m", "java.base/java.lang.Object"), ModulePath.main(base, "java.lang.Object"));
        assertEquals(List.of(getClass().getName()), ModulePath.main(base, getClass().getName()),
                "a class of the class path is named alone");
        assertEquals(List.of("-m", "java.base/x.Y"), ModulePath.main(base, "java.base/x.Y"));
    }

    @Test
    void theLaunchersModuleOptionsArePassedOnAndTheRestIsNot() {
        List<String> parent = List.of("-Xmx1g", "-p", "mods", "--add-modules", "a,b", "--add-opens=java.base/x=app",
                "--add-exports", "java.base/y=app", "-cp", "c.jar", "--limit-modules=app", "-m", "app/app.Main",
                "--add-modules", "not-an-option-of-the-jvm");
        assertEquals(List.of("--add-modules", "a,b", "--add-opens=java.base/x=app", "--add-exports",
                "java.base/y=app", "--limit-modules=app"), ModulePath.launcherOptions(parent));
        // The tests run on the class path, so the launcher's property is not set here.
        assertEquals("mods2", ModulePath.of(List.of("-Xmx1g", "--module-path=mods2", "-m", "app/app.Main")));
        assertEquals("mods3", ModulePath.of(List.of("-p", "mods3", "-cp", "c.jar", "x.Main")));
        assertEquals(null, ModulePath.of(List.of("-cp", "c.jar", "x.Main", "-p", "not-an-option-of-the-jvm")));
    }
}
