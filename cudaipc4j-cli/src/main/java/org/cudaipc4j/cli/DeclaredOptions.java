package org.cudaipc4j.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The {@code @Option} declarations of a class's fields, read from its class file: each field's names, converter
 * class and default value. The same facts as reflection over the annotations gives, without the annotation
 * machinery's cost at start-up (a proxy class generated per annotation type). The bytes are read from a
 * {@link ByteBuffer}, not a {@code DataInputStream}, whose byte-array views spin method handles in a fresh JVM.
 */
final class DeclaredOptions {
    private static final String OPTION = "Lpicocli/CommandLine$Option;";

    /** One field's declaration: its names, its converter's binary class name or null, its default or null. */
    record Declaration(String field, List<String> names, String converter, String defaultValue) {}

    private DeclaredOptions() {}

    /** The declarations of {@code type}'s fields, in field order. @throws IllegalStateException if unreadable */
    static List<Declaration> of(Class<?> type) {
        try {
            return read(ByteBuffer.wrap(classFile(type)));
        } catch (IOException | BufferUnderflowException e) {
            throw new IllegalStateException("cannot read the class file of " + type.getName() + ": " + e, e);
        }
    }

    /**
     * {@code type}'s class file: from the jar or folder it was loaded from, read directly (a class resource looked up
     * through its loader asks the runtime image first and opens the jar through a URL, which costs a fresh JVM
     * milliseconds), else as its loader's resource.
     */
    private static byte[] classFile(Class<?> type) throws IOException {
        String entry = type.getName().replace('.', '/') + ".class";
        CodeSource source = type.getProtectionDomain().getCodeSource();
        URL location = source == null ? null : source.getLocation();
        if (location != null && "file".equals(location.getProtocol())) {
            Path path;
            try {
                path = Path.of(location.toURI());
            } catch (URISyntaxException | IllegalArgumentException e) {
                path = null;
            }
            if (path != null && Files.isDirectory(path)) {
                return Files.readAllBytes(path.resolve(entry));
            }
            if (path != null && Files.isRegularFile(path)) {
                try (ZipFile jar = new ZipFile(path.toFile())) {
                    ZipEntry e = jar.getEntry(entry);
                    if (e != null) {
                        try (InputStream in = jar.getInputStream(e)) {
                            return in.readAllBytes();
                        }
                    }
                }
            }
        }
        try (InputStream raw = type.getResourceAsStream(entry.substring(entry.lastIndexOf('/') + 1))) {
            if (raw == null) {
                throw new IOException("no class file for " + type.getName());
            }
            return raw.readAllBytes();
        }
    }

    private static List<Declaration> read(ByteBuffer in) throws IOException {
        in.getInt(); // magic
        in.getInt(); // versions
        int count = u2(in);
        Object[] pool = new Object[count];
        for (int i = 1; i < count; i++) {
            int tag = u1(in);
            switch (tag) {
                case 1 -> pool[i] = utf(in);
                case 3, 4 -> in.getInt();
                case 5, 6 -> {
                    in.getLong();
                    i++;
                }
                case 7, 8, 16, 19, 20 -> u2(in);
                case 9, 10, 11, 12, 17, 18 -> in.getInt();
                case 15 -> {
                    u1(in);
                    u2(in);
                }
                default -> throw new IOException("constant pool tag " + tag);
            }
        }
        u2(in); // access
        u2(in); // this
        u2(in); // super
        skip(in, 2 * u2(in)); // interfaces
        List<Declaration> declarations = new ArrayList<>();
        int fields = u2(in);
        for (int f = 0; f < fields; f++) {
            u2(in); // access
            String name = (String) pool[u2(in)];
            u2(in); // descriptor
            int attributes = u2(in);
            for (int a = 0; a < attributes; a++) {
                String attribute = (String) pool[u2(in)];
                int length = in.getInt();
                if (!attribute.equals("RuntimeVisibleAnnotations")) {
                    skip(in, length);
                    continue;
                }
                int annotations = u2(in);
                for (int n = 0; n < annotations; n++) {
                    String annotationType = (String) pool[u2(in)];
                    Map<String, Object> values = new LinkedHashMap<>();
                    int pairs = u2(in);
                    for (int p = 0; p < pairs; p++) {
                        values.put((String) pool[u2(in)], elementValue(in, pool));
                    }
                    if (annotationType.equals(OPTION)) {
                        declarations.add(declaration(name, values));
                    }
                }
            }
        }
        return declarations;
    }

    private static int u1(ByteBuffer in) {
        return in.get() & 0xff;
    }

    private static int u2(ByteBuffer in) {
        return in.getShort() & 0xffff;
    }

    private static void skip(ByteBuffer in, int bytes) {
        in.position(in.position() + bytes);
    }

    /** A {@code CONSTANT_Utf8}: a length, then modified UTF-8 (one to three bytes a char; no four-byte form). */
    private static String utf(ByteBuffer in) throws IOException {
        int end = u2(in) + in.position();
        StringBuilder text = new StringBuilder(end - in.position());
        while (in.position() < end) {
            int a = u1(in);
            if (a < 0x80) {
                text.append((char) a);
            } else if ((a & 0xe0) == 0xc0) {
                text.append((char) ((a & 0x1f) << 6 | u1(in) & 0x3f));
            } else if ((a & 0xf0) == 0xe0) {
                text.append((char) ((a & 0x0f) << 12 | (u1(in) & 0x3f) << 6 | u1(in) & 0x3f));
            } else {
                throw new IOException("malformed modified UTF-8 byte " + a);
            }
        }
        return text.toString();
    }

    @SuppressWarnings("unchecked")
    private static Declaration declaration(String field, Map<String, Object> values) {
        Object names = values.get("names");
        List<String> nameList = names instanceof List<?> list ? (List<String>) list : List.of((String) names);
        Object converter = values.get("converter");
        String converterName = null;
        if (converter != null) {
            List<String> converters = converter instanceof List<?> list ? (List<String>) list
                    : List.of((String) converter);
            if (converters.size() != 1) {
                throw new IllegalStateException(field + ": " + converters.size() + " converters");
            }
            String descriptor = converters.getFirst(); // Lpkg/Name$Inner;
            converterName = descriptor.substring(1, descriptor.length() - 1).replace('/', '.');
        }
        return new Declaration(field, nameList, converterName, (String) values.get("defaultValue"));
    }

    private static Object elementValue(ByteBuffer in, Object[] pool) throws IOException {
        int tag = u1(in);
        return switch (tag) {
            case 's', 'c' -> pool[u2(in)];
            case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z' -> {
                u2(in);
                yield null;
            }
            case 'e' -> {
                u2(in);
                u2(in);
                yield null;
            }
            case '@' -> {
                u2(in);
                int pairs = u2(in);
                for (int p = 0; p < pairs; p++) {
                    u2(in);
                    elementValue(in, pool);
                }
                yield null;
            }
            case '[' -> {
                int n = u2(in);
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(elementValue(in, pool));
                }
                yield list;
            }
            default -> throw new IOException("annotation element tag " + (char) tag);
        };
    }
}
