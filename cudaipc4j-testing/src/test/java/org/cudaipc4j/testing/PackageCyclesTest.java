package org.cudaipc4j.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PackageCyclesTest {
    @TempDir
    Path src;

    /** Writes {@code body} as {@code p/q/Name.java} of package {@code p.q}. */
    private void source(String pkg, String name, String body) throws IOException {
        Path dir = src.resolve(pkg.replace('.', '/'));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(name + ".java"), "package " + pkg + ";\n\n" + body + "\n");
    }

    @Test
    void packagesThatImportEachOtherAreACycleNamingTheFileOfEachStep() throws IOException {
        source("x.a", "A", "import x.b.B;\nclass A { B b; }");
        source("x.b", "B", "import x.a.A;\nclass B { A a; }");
        assertEquals(List.of("x.a -> x.b (A.java: x.b.B) -> x.a (B.java: x.a.A)"), PackageCycles.find(List.of(src)));
    }

    @Test
    void aLongerLoopIsACycleToo() throws IOException {
        source("x.a", "A", "import x.b.B;\nclass A {}");
        source("x.b", "B", "import x.c.C;\nclass B {}");
        source("x.c", "C", "import x.a.A;\nclass C {}");
        source("x.d", "D", "import x.a.A;\nclass D {}");
        assertEquals(List.of("x.a -> x.b (A.java: x.b.B) -> x.c (B.java: x.c.C) -> x.a (C.java: x.a.A)"),
                PackageCycles.find(List.of(src)));
    }

    @Test
    void staticWildcardAndNestedImportsAndNamesInFullCount() throws IOException {
        source("x.a", "A", "import static x.b.B.VALUE;\nclass A {}");
        source("x.b", "B", "class B { Object o = new x.a.A(); }");
        source("x.c", "C", "import x.d.*;\nclass C {}");
        source("x.d", "D", "import x.c.C.Inner;\nclass D {}");
        source("x.e", "E", "/** See {@link x.f.F#run()}. */\nclass E {}");
        source("x.f", "F", "import x.e.E;\nclass F {}");
        assertEquals(List.of(
                "x.a -> x.b (A.java: x.b.B.VALUE) -> x.a (B.java: x.a.A)",
                "x.c -> x.d (C.java: x.d) -> x.c (D.java: x.c.C.Inner)",
                "x.e -> x.f (E.java: x.f.F) -> x.e (F.java: x.e.E)"), PackageCycles.find(List.of(src)));
    }

    @Test
    void usesThatPointOneWayAndPackageOverviewsAreNoCycle() throws IOException {
        source("x.a", "A", "import x.a.sub.S;\nimport java.util.List;\nclass A { x.a.A self; }");
        source("x.a.sub", "S", "class S { String s = \"x.a is above\"; }");
        Files.writeString(src.resolve("x/a/sub/package-info.java"), "/** Used by {@link x.a.A}. */\npackage x.a.sub;\n");
        assertEquals(List.of(), PackageCycles.find(List.of(src)));
    }

    @Test
    void loopsAcrossSourceRootsAreFound() throws IOException {
        Path first = src.resolve("first");
        Path second = src.resolve("second");
        Files.createDirectories(first.resolve("x/a"));
        Files.createDirectories(second.resolve("y/b"));
        Files.writeString(first.resolve("x/a/A.java"), "package x.a;\nimport y.b.B;\nclass A {}\n");
        Files.writeString(second.resolve("y/b/B.java"), "package y.b;\nimport x.a.A;\nclass B {}\n");
        assertEquals(List.of("x.a -> y.b (A.java: y.b.B) -> x.a (B.java: x.a.A)"),
                PackageCycles.find(List.of(first, second)));
        assertEquals(List.of(), PackageCycles.find(List.of(first)));
    }

    @Test
    void aMissingFolderIsRefused() {
        Path missing = src.resolve("absent");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PackageCycles.find(List.of(missing)));
        assertEquals(missing + " is not a folder of sources", e.getMessage());
    }
}
