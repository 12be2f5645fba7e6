package org.cudaipc4j.examples;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The examples' Python scripts, copied from the class path to private temporary files to run them. */
final class PythonScripts {
    private PythonScripts() {}

    /** A temporary copy of script {@code name}; the caller deletes it. */
    static Path extract(String name) throws IOException {
        Path file = Files.createTempFile("cudaipc4j-" + name.replace(".py", ""), ".py");
        try (InputStream in = PythonScripts.class.getResourceAsStream(name)) {
            if (in == null) {
                Files.deleteIfExists(file);
                throw new IOException(name + " is not on the class path");
            }
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }
}
