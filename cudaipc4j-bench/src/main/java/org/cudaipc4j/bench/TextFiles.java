package org.cudaipc4j.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The small text files the bench reads (a bench.json, a share file): up to a bound, as strict UTF-8. */
final class TextFiles {
    private TextFiles() {}

    /**
     * {@return the text of {@code file}, or null when it holds more than {@code maxBytes}} Never more is read: a
     * file without end ({@code /dev/zero}) would fill the heap.
     *
     * @param file the file
     * @param maxBytes the most it may hold
     * @throws java.nio.charset.CharacterCodingException when it is not UTF-8
     * @throws IOException when it cannot be read
     */
    static String utf8(Path file, int maxBytes) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(maxBytes + 1);
            return bytes.length > maxBytes ? null
                    : StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        }
    }
}
