package org.cudaipc4j.tool;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The small text inputs the tool's commands read (a descriptor, a handle's hex, a bench.json, a share file): up to a
 * bound, as strict UTF-8, from a regular file only. A FIFO with no writer would block its reader forever, and a device
 * such as {@code /dev/zero} has no end: both are refused before they are opened.
 */
public final class InputFiles {
    private InputFiles() {}

    /** The input's bytes are not UTF-8: where the first bad sequence starts. */
    public static final class NotUtf8Exception extends IOException {
        private final long offset;

        NotUtf8Exception(long offset) {
            super("not UTF-8 (at byte " + offset + ")");
            this.offset = offset;
        }

        /** {@return the offset of the first byte that is not UTF-8} */
        public long offset() {
            return offset;
        }
    }

    /** The path names something other than a regular file (a folder, a FIFO, a device, a socket). */
    public static final class NotRegularFileException extends IOException {
        NotRegularFileException(String what) {
            super(what);
        }
    }

    /**
     * {@return the text of the regular file {@code file}, or null when it holds more than {@code maxBytes}} Never
     * more is read.
     *
     * @param file the file (a link to a regular file counts as one)
     * @param maxBytes the most it may hold
     * @throws java.nio.file.NoSuchFileException when it does not exist
     * @throws NotRegularFileException when it is a folder, a FIFO, a device or a socket
     * @throws NotUtf8Exception when it is not UTF-8
     * @throws IOException when it cannot be read
     */
    public static String utf8(Path file, int maxBytes) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
        if (!attributes.isRegularFile()) {
            throw new NotRegularFileException(attributes.isDirectory() ? "a folder, not a file"
                    : "not a regular file (a FIFO, a device or a socket would block or never end)");
        }
        try (InputStream in = Files.newInputStream(file)) {
            return utf8(in, maxBytes);
        }
    }

    /**
     * {@return the text {@code in} holds up to its end, or null when that is more than {@code maxBytes}} Never more is
     * read.
     *
     * @param in the stream (standard input, say)
     * @param maxBytes the most it may hold
     * @throws NotUtf8Exception when it is not UTF-8
     * @throws IOException when it cannot be read
     */
    public static String utf8(InputStream in, int maxBytes) throws IOException {
        byte[] bytes = in.readNBytes(maxBytes + 1);
        return bytes.length > maxBytes ? null : decode(bytes);
    }

    /**
     * {@return {@code bytes} decoded as UTF-8}
     *
     * @throws NotUtf8Exception naming the offset of the first sequence that is not UTF-8
     */
    public static String decode(byte[] bytes) throws NotUtf8Exception {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (result.isError()) {
            throw new NotUtf8Exception(in.position());
        }
        result = decoder.flush(out);
        if (result.isError()) {
            throw new NotUtf8Exception(in.position());
        }
        return out.flip().toString();
    }
}
