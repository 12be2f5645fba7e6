package org.cudaipc4j.base;

import java.util.Objects;

/**
 * One environment variable or system property that cudaipc4j reads: its name, its default (as it would be written,
 * or none), one line on what it does, and how its text becomes a value. Each module declares the ones it reads in
 * one class ({@code CoordSettings}, {@code ToolSettings}, ...), and every read goes through them, so the list in
 * {@code docs/settings.md} is checked against these declarations.
 *
 * @param <T> the type of its value
 */
public final class Setting<T> {
    /** Where a setting is read from. */
    public enum Source {
        /** An environment variable ({@link System#getenv(String)}: the copy Java took when first used). */
        ENVIRONMENT,
        /** A Java system property ({@code -Dname=value}). */
        PROPERTY
    }

    /**
     * How a setting's text becomes its value.
     *
     * @param <T> the type of the value
     */
    @FunctionalInterface
    public interface Parse<T> {
        /**
         * The value {@code text} sets.
         *
         * @param text the setting's text, or its default when not set; null when neither is there
         * @return the value
         * @throws IllegalArgumentException when the text is not a value of the setting, naming it
         */
        T from(String text);
    }

    private final Source source;
    private final String name;
    private final String defaultValue;
    private final String description;
    private final Parse<T> parse;

    private Setting(Source source, String name, String defaultValue, String description, Parse<T> parse) {
        this.source = Objects.requireNonNull(source, "source");
        this.name = Objects.requireNonNull(name, "name");
        this.defaultValue = defaultValue;
        this.description = Objects.requireNonNull(description, "description");
        this.parse = Objects.requireNonNull(parse, "parse");
        if (name.isBlank() || description.isBlank() || description.contains("\n")) {
            throw new IllegalArgumentException("a setting needs a name and a one-line description: " + name);
        }
    }

    /**
     * An environment variable, read as text.
     *
     * @param name its name
     * @param defaultValue its value when not set, or null for none
     * @param description what it does, in one line
     * @return the declaration
     */
    public static Setting<String> variable(String name, String defaultValue, String description) {
        return new Setting<>(Source.ENVIRONMENT, name, defaultValue, description, Text.INSTANCE);
    }

    /**
     * An environment variable whose text {@code parse} reads.
     *
     * @param <T> the type of its value
     * @param name its name
     * @param defaultValue its text when not set, or null for none
     * @param description what it does, in one line
     * @param parse how its text (or the default) becomes its value
     * @return the declaration
     */
    public static <T> Setting<T> variable(String name, String defaultValue, String description, Parse<T> parse) {
        return new Setting<>(Source.ENVIRONMENT, name, defaultValue, description, parse);
    }

    /**
     * An environment variable that is on when it is set to {@code on} exactly, and off otherwise (unset included).
     *
     * @param name its name
     * @param on the text that turns it on
     * @param description what it does, in one line
     * @return the declaration
     */
    public static Setting<Boolean> switchVariable(String name, String on, String description) {
        return new Setting<>(Source.ENVIRONMENT, name, null, description, new Equals(on));
    }

    /**
     * A system property, read as text.
     *
     * @param name its name
     * @param defaultValue its value when not set, or null for none
     * @param description what it does, in one line
     * @return the declaration
     */
    public static Setting<String> property(String name, String defaultValue, String description) {
        return new Setting<>(Source.PROPERTY, name, defaultValue, description, Text.INSTANCE);
    }

    /**
     * A system property whose text {@code parse} reads.
     *
     * @param <T> the type of its value
     * @param name its name
     * @param defaultValue its text when not set, or null for none
     * @param description what it does, in one line
     * @param parse how its text (or the default) becomes its value
     * @return the declaration
     */
    public static <T> Setting<T> property(String name, String defaultValue, String description, Parse<T> parse) {
        return new Setting<>(Source.PROPERTY, name, defaultValue, description, parse);
    }

    /**
     * A system property that is on when it is {@code true} (in any case), as {@link Boolean#getBoolean} reads it.
     *
     * @param name its name
     * @param description what it does, in one line
     * @return the declaration, default {@code false}
     */
    public static Setting<Boolean> switchProperty(String name, String description) {
        return new Setting<>(Source.PROPERTY, name, "false", description, Flag.INSTANCE);
    }

    /** {@return where it is read from} */
    public Source source() {
        return source;
    }

    /** {@return its name} */
    public String name() {
        return name;
    }

    /** {@return its text when not set, or null for none} */
    public String defaultValue() {
        return defaultValue;
    }

    /** {@return what it does, in one line} */
    public String description() {
        return description;
    }

    /** {@return whether this process has it set (to any text, empty included)} */
    public boolean isSet() {
        return read() != null;
    }

    /** {@return its text in this process, else its default (null when neither)} */
    public String text() {
        String text = read();
        return text != null ? text : defaultValue;
    }

    /**
     * {@return its value in this process}
     *
     * @throws IllegalArgumentException when its text is not a value of it
     */
    public T get() {
        return valueOf(read());
    }

    /**
     * The value {@code text} would set.
     *
     * @param text the text, or null for not set (the default's value)
     * @return the value
     * @throws IllegalArgumentException when the text is not a value of it
     */
    public T valueOf(String text) {
        return parse.from(text != null ? text : defaultValue);
    }

    /** {@return its name, as messages write it} */
    @Override
    public String toString() {
        return name;
    }

    // The one place of the product that reads the environment and system properties.
    private String read() {
        return source == Source.ENVIRONMENT ? System.getenv(name) : System.getProperty(name);
    }

    // Classes rather than lambdas: the tool reads its first settings before it makes any lambda (its Main).
    private static final class Text implements Parse<String> {
        static final Text INSTANCE = new Text();

        @Override
        public String from(String text) {
            return text;
        }
    }

    private static final class Flag implements Parse<Boolean> {
        static final Flag INSTANCE = new Flag();

        @Override
        public Boolean from(String text) {
            return Boolean.parseBoolean(text);
        }
    }

    private static final class Equals implements Parse<Boolean> {
        private final String on;

        Equals(String on) {
            this.on = Objects.requireNonNull(on, "on");
        }

        @Override
        public Boolean from(String text) {
            return on.equals(text);
        }
    }
}
