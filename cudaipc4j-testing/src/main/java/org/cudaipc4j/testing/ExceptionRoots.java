package org.cudaipc4j.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public exceptions of a library: what a user can catch, read from the library's compiled classes, so that a test
 * can check that each descends from the library's one root.
 */
public final class ExceptionRoots {
    private ExceptionRoots() {}

    /**
     * {@return the names of the public throwables in the exported packages of {@code root}'s module (every package
     * where the library runs on the class path), {@code root} among them} Nested classes count when they and every
     * class around them are public.
     *
     * @param root a class of the library's main classes, such as its exception root
     */
    public static Set<String> publicExceptions(Class<?> root) {
        Path classes = classesOf(root);
        Set<String> exported = exportedPackages(root.getModule());
        try (Stream<Path> files = Files.walk(classes)) {
            return files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> classes.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", ""))
                    .filter(name -> !name.endsWith("module-info") && !name.endsWith("package-info"))
                    .filter(name -> exported == null || exported.contains(name.substring(0, name.lastIndexOf('.'))))
                    .map(name -> load(name, root.getClassLoader()))
                    .filter(c -> Throwable.class.isAssignableFrom(c) && isPublic(c))
                    .map(Class::getName)
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the classes under " + classes, e);
        }
    }

    /**
     * {@return the names in {@link #publicExceptions} that do not descend from {@code root}: empty when the library
     * has one root}
     *
     * @param root the library's exception root
     */
    public static Set<String> notBeneath(Class<? extends Throwable> root) {
        return publicExceptions(root).stream()
                .filter(name -> !root.isAssignableFrom(load(name, root.getClassLoader())))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Path classesOf(Class<?> c) {
        try {
            Path location = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isDirectory(location)) {
                throw new IllegalStateException(c.getName() + " is not loaded from a folder of classes: " + location);
            }
            return location;
        } catch (URISyntaxException e) {
            throw new IllegalStateException("no path for the classes of " + c.getName(), e);
        }
    }

    /** The packages a named module exports to everyone; null for the class path, where every package is open. */
    private static Set<String> exportedPackages(Module module) {
        if (!module.isNamed()) {
            return null;
        }
        return module.getDescriptor().exports().stream().filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
    }

    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("cannot load " + name, e);
        }
    }

    private static boolean isPublic(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers())) {
                return false;
            }
        }
        return true;
    }
}
