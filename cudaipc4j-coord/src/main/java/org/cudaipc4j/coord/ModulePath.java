package org.cudaipc4j.coord;

import java.io.File;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a child JVM needs to run as this one does when this one runs on the module path: the module path itself, the
 * modules this JVM resolved from it, the module options it was started with, native access for the modules that
 * have it here, and a main class named by its module ({@code -m}). Without them the child would look for its main
 * class on the class path alone and fail.
 */
final class ModulePath {
    /** Module options of the launcher passed on as given, each with its value. */
    private static final Set<String> PASSED_ON = Set.of("--add-modules", "--add-reads", "--add-exports",
            "--add-opens", "--patch-module", "--limit-modules", "--upgrade-module-path");
    static final String OPTION = "--module-path";

    private ModulePath() {}

    /**
     * {@return this JVM's module path: the launcher's {@code jdk.module.path} property, else the value of
     * {@code -p}/{@code --module-path} in {@code parentArgs}; null when it runs on the class path alone}
     */
    static String of(List<String> parentArgs) {
        String property = System.getProperty("jdk.module.path");
        if (property != null && !property.isEmpty()) {
            return property;
        }
        for (int i = 0; i < parentArgs.size(); i++) {
            String a = parentArgs.get(i);
            if ((a.equals("-p") || a.equals(OPTION)) && i + 1 < parentArgs.size()) {
                return parentArgs.get(i + 1);
            }
            if (a.startsWith(OPTION + "=")) {
                return a.substring(OPTION.length() + 1);
            }
            if (a.equals("-jar") || a.equals("-m") || a.equals("--module") || !a.startsWith("-")) {
                break;
            }
        }
        return null;
    }

    /**
     * {@return the options that put a child on {@code modulePath} as this JVM is: native access, the path (made
     * absolute), the launcher's module options from {@code parentArgs}, and {@code --add-modules} with every module
     * this JVM resolved from the path, so that the child resolves the same ones whatever its main class}
     */
    static List<String> options(String modulePath, List<String> parentArgs) {
        List<String> out = new ArrayList<>();
        Set<String> resolved = new TreeSet<>();
        Set<String> nativeAccess = new TreeSet<>();
        for (ResolvedModule m : ModuleLayer.boot().configuration().modules()) {
            boolean system = m.reference().location().map(u -> u.getScheme().equals("jrt")).orElse(true);
            if (!system) {
                resolved.add(m.name());
                ModuleLayer.boot().findModule(m.name()).filter(Module::isNativeAccessEnabled)
                        .ifPresent(mod -> nativeAccess.add(mod.getName()));
            }
        }
        Set<String> access = new LinkedHashSet<>();
        access.add("ALL-UNNAMED");
        access.addAll(nativeAccess);
        out.add("--enable-native-access=" + String.join(",", access));
        out.add(OPTION);
        out.add(absolute(modulePath));
        out.addAll(launcherOptions(parentArgs));
        if (!resolved.isEmpty()) {
            out.add("--add-modules");
            out.add(String.join(",", resolved));
        }
        return out;
    }

    /** The launcher's module options in {@code parentArgs}, before the main class, each with its value. */
    static List<String> launcherOptions(List<String> parentArgs) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < parentArgs.size(); i++) {
            String a = parentArgs.get(i);
            if (a.equals("-jar") || a.equals("-m") || a.equals("--module") || a.startsWith("--module=")
                    || !a.startsWith("-")) {
                break;
            }
            if (PASSED_ON.contains(a) && i + 1 < parentArgs.size()) {
                out.add(a);
                out.add(parentArgs.get(++i));
            } else if (PASSED_ON.stream().anyMatch(o -> a.startsWith(o + "="))) {
                out.add(a);
            } else if (JvmCommand.takesValue(a)) {
                i++;
            }
        }
        return out;
    }

    private static String absolute(String path) {
        return String.join(File.pathSeparator, Arrays.stream(path.split(File.pathSeparator))
                .filter(e -> !e.isEmpty()).map(e -> Path.of(e).toAbsolutePath().toString()).toList());
    }

    /**
     * {@return how a child started with {@code base} names {@code mainClass}: {@code -m module/class} for a class of a
     * named module (found through the class when this JVM can load it, or given as {@code module/class}), else the
     * class alone}
     *
     * @throws CoordinationException when the child could not find it: a module named on the class path, a module
     *     that is not on the module path, or a class this JVM on the module path cannot load and whose module is not
     *     named
     */
    static List<String> main(List<String> base, String mainClass) {
        int at = base.indexOf(OPTION);
        String modulePath = at >= 0 && at + 1 < base.size() ? base.get(at + 1) : null;
        int slash = mainClass.indexOf('/');
        if (modulePath == null) {
            if (slash >= 0) {
                throw new CoordinationException("cannot start a child with main class " + mainClass + ": it names"
                        + " module '" + mainClass.substring(0, slash) + "', but this JVM runs on the class path (no"
                        + " --module-path); run it on the module path, or name the class alone");
            }
            return List.of(mainClass);
        }
        if (slash >= 0) {
            String module = mainClass.substring(0, slash);
            Path[] entries = Arrays.stream(modulePath.split(File.pathSeparator)).filter(e -> !e.isEmpty())
                    .map(Path::of).toArray(Path[]::new);
            boolean found;
            try {
                found = ModuleFinder.compose(ModuleFinder.of(entries), ModuleFinder.ofSystem()).find(module)
                        .isPresent();
            } catch (FindException e) {
                throw new CoordinationException("cannot start a child in module '" + module + "': the module path"
                        + " cannot be read: " + e.getMessage(), e);
            }
            if (!found) {
                throw new CoordinationException("cannot start a child in module '" + module + "': it is not on the"
                        + " module path (" + modulePath + ")");
            }
            return List.of("-m", mainClass);
        }
        Class<?> c;
        try {
            c = Class.forName(mainClass, false, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new CoordinationException("cannot start a child with main class " + mainClass + ": this JVM runs"
                    + " on the module path and cannot load it to find its module; name its module as 'module/"
                    + mainClass + "'");
        }
        Module module = c.getModule();
        return module.isNamed() ? List.of("-m", module.getName() + "/" + mainClass) : List.of(mainClass);
    }
}
