package org.cudaipc4j.cli;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code @Option} declarations of a class's fields, read from its class file: each field's names, converter
 * class and default value. The same facts as reflection over the annotations gives, without the annotation
 * machinery's cost at start-up (a proxy class generated per annotation type).
 */
final class DeclaredOptions {
    private static final String OPTION = "Lpicocli/CommandLine$Option;";

    /** One field's declaration: its names, its converter's binary class name or null, its default or null. */
    record Declaration(String field, List<String> names, String converter, String defaultValue) {}

    private DeclaredOptions() {}

    /** The declarations of {@code type}'s fields, in field order. @throws IllegalStateException if unreadable */
    static List<Declaration> of(Class<?> type) {
        String resource = type.getName().substring(type.getName().lastIndexOf('.') + 1) + ".class";
        try (InputStream raw = type.getResourceAsStream(resource)) {
            if (raw == null) {
                throw new IllegalStateException("no class file for " + type.getName());
            }
            return read(new DataInputStream(new java.io.BufferedInputStream(raw)));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the class file of " + type.getName() + ": " + e, e);
        }
    }

    private static List<Declaration> read(DataInputStream in) throws IOException {
        in.readInt(); // magic
        in.readInt(); // versions
        int count = in.readUnsignedShort();
        Object[] pool = new Object[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> pool[i] = in.readUTF();
                case 3, 4 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;
                }
                case 7, 8, 16, 19, 20 -> in.readUnsignedShort();
                case 9, 10, 11, 12, 17, 18 -> in.readInt();
                case 15 -> {
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                default -> throw new IOException("constant pool tag " + tag);
            }
        }
        in.readUnsignedShort(); // access
        in.readUnsignedShort(); // this
        in.readUnsignedShort(); // super
        in.skipNBytes(2L * in.readUnsignedShort()); // interfaces
        List<Declaration> declarations = new ArrayList<>();
        int fields = in.readUnsignedShort();
        for (int f = 0; f < fields; f++) {
            in.readUnsignedShort(); // access
            String name = (String) pool[in.readUnsignedShort()];
            in.readUnsignedShort(); // descriptor
            int attributes = in.readUnsignedShort();
            for (int a = 0; a < attributes; a++) {
                String attribute = (String) pool[in.readUnsignedShort()];
                int length = in.readInt();
                if (!attribute.equals("RuntimeVisibleAnnotations")) {
                    in.skipNBytes(length);
                    continue;
                }
                int annotations = in.readUnsignedShort();
                for (int n = 0; n < annotations; n++) {
                    String annotationType = (String) pool[in.readUnsignedShort()];
                    Map<String, Object> values = new LinkedHashMap<>();
                    int pairs = in.readUnsignedShort();
                    for (int p = 0; p < pairs; p++) {
                        values.put((String) pool[in.readUnsignedShort()], elementValue(in, pool));
                    }
                    if (annotationType.equals(OPTION)) {
                        declarations.add(declaration(name, values));
                    }
                }
            }
        }
        return declarations;
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

    private static Object elementValue(DataInputStream in, Object[] pool) throws IOException {
        int tag = in.readUnsignedByte();
        return switch (tag) {
            case 's', 'c' -> pool[in.readUnsignedShort()];
            case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z' -> {
                in.readUnsignedShort();
                yield null;
            }
            case 'e' -> {
                in.readUnsignedShort();
                in.readUnsignedShort();
                yield null;
            }
            case '@' -> {
                in.readUnsignedShort();
                int pairs = in.readUnsignedShort();
                for (int p = 0; p < pairs; p++) {
                    in.readUnsignedShort();
                    elementValue(in, pool);
                }
                yield null;
            }
            case '[' -> {
                int n = in.readUnsignedShort();
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
