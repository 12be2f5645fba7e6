/**
 * What the project's tests share (the GPU tag and gate, child JVMs, leak checks, the project's files); test scope
 * only, never published. See {@link org.cudaipc4j.testing}.
 */
module org.cudaipc4j.testing {
    requires transitive org.junit.jupiter.api;

    exports org.cudaipc4j.testing;
}
