package org.cudaipc4j.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The project's root folder (the one with {@code scripts/} and the reactor's {@code pom.xml}), found from the
 * working directory up: Maven runs each module's tests in the module's folder, the GPU scripts in the root.
 */
public final class ProjectRoot {
    private ProjectRoot() {}

    /** The root, or empty when the tests run outside a checkout (from a bare class path elsewhere). */
    public static Optional<Path> find() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("scripts/build-ptx.sh")) && Files.isRegularFile(dir.resolve("pom.xml"))) {
                return Optional.of(dir);
            }
        }
        return Optional.empty();
    }
}
