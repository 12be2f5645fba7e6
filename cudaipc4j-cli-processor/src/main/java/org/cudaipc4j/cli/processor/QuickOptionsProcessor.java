package org.cudaipc4j.cli.processor;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.tools.Diagnostic;

/**
 * Writes, for each class marked {@link QuickOptions}, the class {@code <Command>QuickOptions} in its package: its
 * picocli {@code @Option} fields as a table (fields, names, defaults as written, which are flags), each option's
 * converter made with {@code new}, and a setter that assigns each field directly. A command parses simple command
 * lines with it instead of building picocli's model, without reflection (whose first field access in a JVM
 * generates method handles: milliseconds of every run's start), and the table cannot drift from the declarations it
 * is made from.
 *
 * <p>Refused at compile time, naming the field: a private, static or final option field; more than one converter;
 * an option without a converter whose field is not {@code boolean} (a flag), {@code int} or {@code Integer} (read as
 * plain decimal digits).
 */
@SupportedAnnotationTypes("org.cudaipc4j.cli.processor.QuickOptions")
public final class QuickOptionsProcessor extends AbstractProcessor {
    private static final String OPTION = "picocli.CommandLine.Option";
    /** picocli's value for "no default" ({@code Option.defaultValue()}'s own default). */
    private static final String NO_DEFAULT = "__no_default_value__";

    /** For the compiler, which finds processors by their public no-argument constructor. */
    public QuickOptionsProcessor() {}

    /** One {@code @Option} field as the table needs it. */
    private record Declared(String field, List<String> names, String converter, String defaultValue,
            String boxedType, boolean flag) {}

    /** A declaration the table cannot be made from, reported on its element. */
    private static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        final transient Element element;

        Refused(Element element, String message) {
            super(message);
            this.element = element;
        }
    }

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        for (TypeElement marker : annotations) {
            for (TypeElement command : ElementFilter.typesIn(round.getElementsAnnotatedWith(marker))) {
                try {
                    write(command, declarations(command));
                } catch (Refused r) {
                    processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, r.getMessage(), r.element);
                } catch (IOException e) {
                    processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR,
                            "cannot write the option table of " + command + ": " + e, command);
                }
            }
        }
        return true;
    }

    private List<Declared> declarations(TypeElement command) throws Refused {
        List<Declared> declared = new ArrayList<>();
        for (VariableElement field : ElementFilter.fieldsIn(command.getEnclosedElements())) {
            AnnotationMirror option = option(field);
            if (option == null) {
                continue;
            }
            Set<Modifier> modifiers = field.getModifiers();
            if (modifiers.contains(Modifier.PRIVATE) || modifiers.contains(Modifier.STATIC)
                    || modifiers.contains(Modifier.FINAL)) {
                throw new Refused(field, "option field " + field + " must be an instance field that the table"
                        + " can set: not private, static or final");
            }
            Map<? extends ExecutableElement, ? extends AnnotationValue> values = option.getElementValues();
            List<String> names = new ArrayList<>();
            List<String> converters = new ArrayList<>();
            String defaultValue = null;
            for (var entry : values.entrySet()) {
                String key = entry.getKey().getSimpleName().toString();
                Object value = entry.getValue().getValue();
                switch (key) {
                    case "names" -> strings(value, names);
                    case "converter" -> {
                        for (Object c : value instanceof List<?> list ? list : List.of(entry.getValue())) {
                            converters.add(erasure((TypeMirror) ((AnnotationValue) c).getValue()));
                        }
                    }
                    case "defaultValue" -> defaultValue = NO_DEFAULT.equals(value) ? null : (String) value;
                    default -> { } // help texts, labels, arity: picocli's alone
                }
            }
            if (converters.size() > 1) {
                throw new Refused(field, "option field " + field + " has " + converters.size()
                        + " converters; the table takes one");
            }
            TypeMirror type = field.asType();
            boolean flag = type.getKind() == TypeKind.BOOLEAN;
            if (converters.isEmpty() && !flag && type.getKind() != TypeKind.INT
                    && !erasure(type).equals("java.lang.Integer")) {
                throw new Refused(field, "option field " + field + " (" + type + ") needs a converter: without one"
                        + " the table reads only flags and plain decimal integers");
            }
            String boxed = type.getKind().isPrimitive()
                    ? processingEnv.getTypeUtils().boxedClass(processingEnv.getTypeUtils().getPrimitiveType(
                            type.getKind())).getQualifiedName().toString()
                    : erasure(type);
            declared.add(new Declared(field.getSimpleName().toString(), names,
                    converters.isEmpty() ? null : converters.getFirst(), defaultValue, boxed, flag));
        }
        return declared;
    }

    private static AnnotationMirror option(VariableElement field) {
        for (AnnotationMirror a : field.getAnnotationMirrors()) {
            if (((TypeElement) a.getAnnotationType().asElement()).getQualifiedName().contentEquals(OPTION)) {
                return a;
            }
        }
        return null;
    }

    private static void strings(Object value, List<String> into) {
        if (value instanceof List<?> list) {
            for (Object v : list) {
                into.add((String) ((AnnotationValue) v).getValue());
            }
        } else {
            into.add((String) value);
        }
    }

    /** The type as source code names it, without type arguments ({@code a.b.Outer.Inner}). */
    private String erasure(TypeMirror type) {
        return processingEnv.getTypeUtils().erasure(type).toString();
    }

    private void write(TypeElement command, List<Declared> options) throws IOException {
        PackageElement pkg = processingEnv.getElementUtils().getPackageOf(command);
        String commandName = command.getSimpleName().toString();
        String tableName = commandName + "QuickOptions";
        String qualified = pkg.isUnnamed() ? tableName : pkg.getQualifiedName() + "." + tableName;
        StringBuilder src = new StringBuilder();
        if (!pkg.isUnnamed()) {
            src.append("package ").append(pkg.getQualifiedName()).append(";\n\n");
        }
        src.append("/**\n * {@code ").append(commandName).append("}'s {@code @Option} fields as a table, for its parse")
                .append(" without picocli: option by option\n * in declaration order, the names, the default as")
                .append(" written, whether it is a flag, its converter and its\n * field's setter. Written by")
                .append(" QuickOptionsProcessor from the declarations at each build.\n */\n")
                .append("final class ").append(tableName).append(" {\n")
                .append("    /** The options' fields. */\n    static final String[] FIELDS = {\n");
        for (Declared d : options) {
            src.append("        ").append(literal(d.field())).append(",\n");
        }
        src.append("    };\n\n    /** The options' names. */\n    static final String[][] NAMES = {\n");
        for (Declared d : options) {
            src.append("        {");
            for (int i = 0; i < d.names().size(); i++) {
                src.append(i == 0 ? "" : ", ").append(literal(d.names().get(i)));
            }
            src.append("},\n");
        }
        src.append("    };\n\n    /** Each option's default as its declaration writes it, or null. */\n")
                .append("    static final String[] DEFAULT_VALUES = {\n");
        for (Declared d : options) {
            src.append("        ").append(literal(d.defaultValue())).append(",\n");
        }
        src.append("    };\n\n    /** Whether each option is a flag (a {@code boolean} field). */\n")
                .append("    static final boolean[] FLAGS = {\n");
        for (Declared d : options) {
            src.append("        ").append(d.flag()).append(",\n");
        }
        src.append("    };\n\n    private ").append(tableName).append("() {}\n\n")
                .append("    /** {@return option {@code option}'s converter, new; null where it has none} */\n")
                .append("    static picocli.CommandLine.ITypeConverter<?> converter(int option) {\n")
                .append("        return switch (option) {\n");
        for (int i = 0; i < options.size(); i++) {
            if (options.get(i).converter() != null) {
                src.append("            case ").append(i).append(" -> new ").append(options.get(i).converter())
                        .append("();\n");
            }
        }
        src.append("            default -> null;\n        };\n    }\n\n")
                .append("    /** Sets option {@code option}'s field of {@code command} to {@code value}, of the")
                .append(" field's (boxed) type. */\n")
                .append("    static void set(").append(commandName).append(" command, int option, Object value) {\n")
                .append("        switch (option) {\n");
        for (int i = 0; i < options.size(); i++) {
            Declared d = options.get(i);
            src.append("            case ").append(i).append(" -> command.").append(d.field()).append(" = (")
                    .append(d.boxedType()).append(") value;\n");
        }
        src.append("            default -> throw new IllegalArgumentException(\"no option \" + option);\n")
                .append("        }\n    }\n}\n");
        try (Writer out = processingEnv.getFiler().createSourceFile(qualified, command).openWriter()) {
            out.write(src.toString());
        }
    }

    /**
     * {@code text} as a Java string literal, or {@code null}: written by the compiler's own
     * {@link javax.lang.model.util.Elements#getConstantExpression}, which escapes as the Java language does.
     */
    private String literal(String text) {
        return text == null ? "null" : processingEnv.getElementUtils().getConstantExpression(text);
    }
}
