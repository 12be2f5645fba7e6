package org.cudaipc4j.cli;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Helps the JDK's AOT cache training run ({@code -XX:AOTCacheOutput}), which records the classes one JVM loads.
 * The training run is the parent of a short run; its children are other JVMs, so their classes would be missing.
 * With the system property {@code cudaipc4j.aotTraining} set ({@link CliSettings#AOT_TRAINING}), the tool loads every
 * class of its own jar before it exits, so the cache serves the children's start-up too.
 */
final class AotTraining {
    private AotTraining() {}

    static boolean requested() {
        return CliSettings.AOT_TRAINING.get();
    }

    /** Loads (without initialising) every class of the jar this class came from; returns how many. */
    static int loadOwnClasses() {
        Path jar;
        try {
            jar = Path.of(AotTraining.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            return 0;
        }
        if (!Files.isRegularFile(jar)) {
            return 0; // running from a class folder (tests): nothing to train
        }
        ClassLoader loader = AotTraining.class.getClassLoader();
        int loaded = 0;
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry e : (Iterable<JarEntry>) file.stream()::iterator) {
                String name = e.getName();
                if (name.startsWith("org/cudaipc4j/") && name.endsWith(".class")) {
                    try {
                        Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, loader);
                        loaded++;
                    } catch (ClassNotFoundException | LinkageError skipped) {
                        // Not loadable here (e.g. needs an absent optional module): the cache does without it.
                    }
                }
            }
        } catch (IOException e) {
            return loaded;
        }
        return loaded;
    }
}
