package org.cudaipc4j.interop;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSON text of a {@link Descriptor}, format 1.0 ({@code docs/interop-format.md}, "Rules of the text").
 *
 * <p>Writing is canonical, so that Java and Python write the same bytes: fields in the documented order, absent
 * optional fields left out (the six {@code torch} fields always written, {@code null} where torch has none), no
 * whitespace, integers in plain decimal, hex and UUIDs in lower case, strings in ASCII with {@code "} and
 * {@code \} escaped, the short escapes for backspace, form feed, newline, return and tab, every other character below
 * 0x20 or above 0x7e as {@code \}{@code u} and four lower-case hex digits. No trailing newline (a golden file adds
 * one).
 *
 * <p>Reading takes any valid JSON (whitespace, key order, escapes free) through {@link JsonText}, the grammar the
 * Python reader shares, ignores fields it does not know, treats a {@code null} optional top-level field as absent,
 * accepts any minor version of major 1 and refuses, in one line naming the field and in the Python reader's words
 * ({@code interop-golden/invalid/}), everything else: not UTF-8, not JSON, nested deeper than
 * 64 levels, a key given twice, text after the object, a newer (or older) major version, a missing
 * or mistyped field ({@code 1.0}, {@code 1e3} and booleans are no integers), an integer out of range, bad hex, an
 * unknown kind, handle type or dtype, a field of another kind, a file name not of its form ({@link SharedNames}), a
 * torch handle that {@link TorchHandle#parse} refuses. Text of the input in a refusal is escaped as the writer
 * escapes strings.
 */
public final class DescriptorJson {
    private static final Pattern GPU_UUID = Pattern.compile(
            "GPU-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");

    private DescriptorJson() {}

    /**
     * {@return the descriptor as its canonical line of JSON (no trailing newline)}
     *
     * @param d the descriptor
     */
    public static String toJson(Descriptor d) {
        return DescriptorJsonWriter.toJson(d);
    }

    /**
     * {@return {@code GPU-} and the UUID in lower case, as {@code nvidia-smi -L} prints it}
     *
     * @param uuid the UUID
     */
    public static String uuidString(UUID uuid) {
        return "GPU-" + uuid;
    }

    /**
     * {@return the UUID of {@code GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx} (hex in either case)}
     *
     * @param s the text
     * @throws DescriptorFormatException when it is not of that form
     */
    public static UUID parseUuid(String s) {
        Matcher m = GPU_UUID.matcher(s);
        if (!m.matches()) {
            throw new DescriptorFormatException("descriptor: field 'device_uuid' must look like"
                    + " GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, got '" + JsonValues.clip(s) + "'");
        }
        return UUID.fromString(m.group(1).toLowerCase(Locale.ROOT));
    }

    /**
     * {@return {@code s} escaped as the writer escapes strings, without the quotes: printable ASCII, each control
     * character (and every character above 0x7e) visible as an escape} Messages show text of their input so.
     *
     * @param s the text
     */
    public static String visible(String s) {
        String q = DescriptorJsonWriter.quoted(s);
        return q.substring(1, q.length() - 1);
    }

    /**
     * As {@link #fromJson(String)} for UTF-8 bytes; text that is not UTF-8 is refused, naming the offset of the first
     * byte that is not.
     *
     * @param utf8 the JSON text in UTF-8
     * @return the descriptor
     */
    public static Descriptor fromJson(byte[] utf8) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(utf8);
        CharBuffer out = CharBuffer.allocate(utf8.length);
        if (decoder.decode(in, out, true).isError() || decoder.flush(out).isError()) {
            throw new DescriptorFormatException("descriptor: not UTF-8 (at byte " + in.position() + ")");
        }
        return fromJson(out.flip().toString());
    }

    /**
     * Reads a descriptor.
     *
     * @param json the JSON text
     * @return the descriptor
     * @throws DescriptorFormatException in one line naming the field (see the class comment)
     */
    public static Descriptor fromJson(String json) {
        return DescriptorJsonReader.fromJson(json);
    }
}
