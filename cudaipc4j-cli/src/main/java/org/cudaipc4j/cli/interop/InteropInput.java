package org.cudaipc4j.cli.interop;

import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.function.Supplier;
import org.cudaipc4j.interop.Descriptor;
import org.cudaipc4j.interop.DescriptorFormatException;
import org.cudaipc4j.interop.DescriptorJson;
import org.cudaipc4j.interop.TorchHandle;
import org.cudaipc4j.tool.Failures;
import org.cudaipc4j.tool.InputFiles;

/**
 * What the commands' argument names: a descriptor of format 1.0 or a bare torch storage handle, read from a file,
 * standard input ({@code -}), or the argument itself (JSON text, or the handle's hex). Parsed by the library's own
 * readers ({@link DescriptorJson}, {@link TorchHandle}); anything they refuse, and anything that is neither, is a
 * {@link BadInputException} with one line naming what is wrong.
 */
sealed interface InteropInput {
    /** The most bytes read from a file or standard input (the descriptor socket's own payload limit). */
    int MAX_BYTES = 16 << 20;

    /** Where the input came from, for messages: a path, "standard input" or "the argument". */
    String source();

    /**
     * A descriptor.
     *
     * @param descriptor the parsed descriptor
     * @param version    the format version as the text gives it ({@code cudaipc4j_descriptor}, e.g. {@code 1.0})
     * @param source     where it came from
     */
    record Json(Descriptor descriptor, String version, String source) implements InteropInput {}

    /**
     * A bare torch handle: only the handle's bytes, without torch's other sharing fields.
     *
     * @param handle the parsed handle
     * @param source where it came from
     */
    record Handle(TorchHandle handle, String source) implements InteropInput {}

    /**
     * Reads {@code arg} (named in messages with its control characters escaped): {@code -} is standard input; an existing file is read; text starting with <code>{</code>
     * is a descriptor; anything else is a handle's hex (an argument with a {@code /} or ending in {@code .json}
     * that names no file is reported as a missing file).
     *
     * @throws BadInputException naming what is wrong
     */
    static InteropInput parse(String arg, Supplier<InputStream> stdin) {
        if (arg.equals("-")) {
            return parseText(read(stdin.get(), "standard input"), "standard input");
        }
        String trimmed = arg.strip();
        if (trimmed.startsWith("{")) {
            return parseText(trimmed, "the argument");
        }
        Path path;
        try {
            path = Path.of(arg);
        } catch (RuntimeException e) {
            path = null;
        }
        // the path as messages show it: a name's control characters escaped, never written to the terminal
        String shown = DescriptorJson.visible(arg);
        if (path != null && !arg.isEmpty() && Files.exists(path)) {
            try {
                return parseText(bounded(InputFiles.utf8(path, MAX_BYTES), shown), shown);
            } catch (InputFiles.NotRegularFileException e) {
                throw new BadInputException(shown + " is " + e.getMessage() + ": not a descriptor or handle file");
            } catch (IOException e) {
                throw unreadable(e, shown);
            }
        }
        if (arg.contains("/") || arg.endsWith(".json")) {
            throw new BadInputException("no such file: " + shown);
        }
        return parseHex(trimmed, "the argument");
    }

    private static String read(InputStream in, String what) {
        try {
            return bounded(InputFiles.utf8(in, MAX_BYTES), what);
        } catch (IOException e) {
            throw unreadable(e, what);
        }
    }

    private static String bounded(String text, String what) {
        if (text == null) {
            throw new BadInputException(what + " holds more than " + MAX_BYTES + " bytes: no descriptor or handle is"
                    + " that long");
        }
        return text;
    }

    private static BadInputException unreadable(IOException e, String what) {
        return switch (e) {
            case NoSuchFileException n -> new BadInputException("no such file: " + what);
            case InputFiles.NotUtf8Exception n -> new BadInputException(what + " is not a descriptor or a torch handle:"
                    + " its bytes are " + n.getMessage());
            default -> new BadInputException("cannot read " + what + ": " + Failures.fileReason(e));
        };
    }

    /** Text of a file or of standard input: a descriptor's JSON, or a handle's hex. */
    private static InteropInput parseText(String text, String source) {
        String t = text.strip();
        if (t.isEmpty()) {
            throw new BadInputException(source + " is empty: expected a descriptor's JSON or a torch handle's hex");
        }
        if (t.startsWith("{")) {
            Descriptor d;
            try {
                d = DescriptorJson.fromJson(t);
            } catch (DescriptorFormatException e) {
                throw new BadInputException(oneLine(e.getMessage()));
            }
            // The version as written (a reader accepts any 1.x; the descriptor keeps only what it needs).
            String version = JsonParser.parseString(t).getAsJsonObject().get("cudaipc4j_descriptor").getAsString();
            return new Json(d, version, source);
        }
        return parseHex(t, source);
    }

    /** A torch handle's hex: digits in either case, an even number of them, then {@link TorchHandle#parse}. */
    static Handle parseHex(String hex, String source) {
        if (hex.isEmpty()) {
            throw new BadInputException(source + " is empty: expected a descriptor's JSON or a torch handle's hex");
        }
        if (hex.startsWith("[")) {
            throw new BadInputException(source + " is a JSON array: a descriptor is a JSON object, a torch handle hex");
        }
        for (int i = 0; i < hex.length(); i++) {
            if (!HexFormat.isHexDigit(hex.charAt(i))) { // ASCII digits only: Unicode digits are no hex
                throw new BadInputException(source + " is not a descriptor (JSON) or a torch handle (hex): "
                        + describeChar(hex.charAt(i)) + " at position " + i + " is not a hex digit"
                        + (source.equals("the argument") ? " (and no file has that name)" : ""));
            }
        }
        if (hex.length() % 2 != 0) {
            throw new BadInputException("torch handle hex has an odd number of digits (" + hex.length() + "): two"
                    + " digits make a byte");
        }
        byte[] bytes = HexFormat.of().parseHex(hex);
        try {
            return new Handle(TorchHandle.parse(bytes), source);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(oneLine(e.getMessage()));
        }
    }

    private static String describeChar(char c) {
        return c >= 0x20 && c < 0x7f ? "'" + c + "'" : String.format("character U+%04X", (int) c);
    }

    private static String oneLine(String s) {
        return String.valueOf(s).replace('\n', ' ');
    }
}
