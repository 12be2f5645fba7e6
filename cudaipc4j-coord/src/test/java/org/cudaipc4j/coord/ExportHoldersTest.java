package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.cudaipc4j.testing.JavaProcess;
import org.cudaipc4j.testing.ShmLeaks;
import org.junit.jupiter.api.Test;

/** The exporter frees only what nobody maps: live holds count, released and dead ones do not. */
class ExportHoldersTest {
    private static final Duration LIMIT = Duration.ofSeconds(60);

    @Test
    void aLiveHoldKeepsTheExportAndTheTimeoutNamesTheHolder() {
        try (ExportHolders table = ExportHolders.create(8); ExportHolders importer = ExportHolders.open(table.name())) {
            ExportHolders.Hold hold = importer.hold(7);
            assertEquals(List.of(ProcessHandle.current().pid()), table.holders(7));
            assertEquals(List.of(), table.holders(8), "another export is not held");
            CoordinationException held = assertThrows(CoordinationException.class,
                    () -> table.awaitReleased(7, Deadline.after(Duration.ofMillis(100), "the test's limit")));
            assertEquals("timed out after 100 ms (the test's limit) waiting for export 7 to be released: still held"
                    + " by pid " + ProcessHandle.current().pid(), held.getMessage());
            hold.close();
            hold.close();
            table.awaitReleased(7, Deadline.after(Duration.ofMillis(100), "the test's limit"));
        }
    }

    @Test
    void manyExportsAreAskedForAndAwaitedTogether() {
        long me = ProcessHandle.current().pid();
        try (ExportHolders table = ExportHolders.create(8); ExportHolders importer = ExportHolders.open(table.name())) {
            ExportHolders.Hold a = importer.hold(1);
            ExportHolders.Hold b = importer.hold(2);
            ExportHolders.Hold again = importer.hold(2);
            importer.hold(3).close();
            assertEquals(Map.of(1L, List.of(me), 2L, List.of(me, me)), table.holders(Set.of(1L, 2L, 3L, 4L)));
            assertEquals(List.of(1L, 2L), List.copyOf(table.holders(Set.of(2L, 1L)).keySet()), "in the table's order");
            assertEquals(Map.of(), table.holders(Set.of()));
            CoordinationException held = assertThrows(CoordinationException.class, () -> table.awaitReleased(
                    Set.of(1L, 2L, 3L), Deadline.after(Duration.ofMillis(100), "the test's limit")));
            assertEquals("timed out after 100 ms (the test's limit) waiting for 2 of 3 exports to be released: export"
                    + " 1 still held by pid " + me, held.getMessage());
            a.close();
            b.close();
            held = assertThrows(CoordinationException.class, () -> table.awaitReleased(Set.of(1L, 2L),
                    Deadline.after(Duration.ofMillis(100), "the test's limit")));
            assertEquals("timed out after 100 ms (the test's limit) waiting for 1 of 2 exports to be released: export"
                    + " 2 still held by pid " + me, held.getMessage());
            again.close();
            table.awaitReleased(Set.of(1L, 2L, 3L), Deadline.after(Duration.ofMillis(100), "the test's limit"));
        }
    }

    @Test
    void anotherProcessHoldsUntilItReleasesOrDies() throws Exception {
        try (ExportHolders table = ExportHolders.create(8);
             JavaProcess.Interactive releases = JavaProcess.start(JavaProcess.command(HolderPeer.class, List.of(),
                     table.name(), "1"));
             JavaProcess.Interactive dies = JavaProcess.start(JavaProcess.command(HolderPeer.class, List.of(),
                     table.name(), "1"))) {
            assertEquals("HOLDING", releases.readLine(LIMIT));
            assertEquals("HOLDING", dies.readLine(LIMIT));
            assertEquals(2, table.holders(1).size());
            assertTrue(table.holders(1).contains(dies.pid()));

            releases.writeLine("go");
            assertEquals("RELEASED", releases.readLine(LIMIT));
            assertEquals(0, releases.finish(LIMIT).exitCode());
            ShmLeaks.assertNoneOf(releases.pid());
            assertEquals(List.of(dies.pid()), table.holders(1));

            ProcessHandle.of(dies.pid()).orElseThrow().destroyForcibly();
            dies.finish(LIMIT);
            assertEquals(List.of(), table.holders(1), "a dead holder does not count");
            table.awaitReleased(1, Deadline.after(LIMIT, "the test's limit"));
        }
    }

    @Test
    void anEntryClaimedByAProcessThatDiedBeforeItsHoldIsTakenAgain() throws Exception {
        long gone = SharedSegmentTest.deadPid();
        try (ExportHolders table = ExportHolders.create(1); SharedSegment raw = SharedSegment.open(table.name())) {
            // The table's only entry, after its 64-byte header, as a claim leaves it until the hold is written:
            // the claimer's pid in the state word's high half, generation 1 (4), state CLAIMED (1).
            MemorySegment entry = raw.memory().asSlice(64, 32);
            entry.set(ValueLayout.JAVA_LONG, 0, ProcessHandle.current().pid() << 32 | 4 | 1);
            CoordinationException full = assertThrows(CoordinationException.class, () -> table.hold(9));
            assertTrue(full.getMessage().endsWith("is full: 1 holds by live processes"), "a live claimer keeps it");

            entry.set(ValueLayout.JAVA_LONG, 0, gone << 32 | 4 | 1);
            try (ExportHolders.Hold hold = table.hold(9)) {
                assertEquals(List.of(ProcessHandle.current().pid()), table.holders(9));
            }
            assertEquals(List.of(), table.holders(9));
        }
    }

    @Test
    void aFullTableSaysSoAndClosingTheTableEndsItsHolds() {
        try (ExportHolders table = ExportHolders.create(2)) {
            ExportHolders importer = ExportHolders.open(table.name());
            importer.hold(1);
            importer.hold(2);
            CoordinationException full = assertThrows(CoordinationException.class, () -> importer.hold(3));
            assertTrue(full.getMessage().endsWith("is full: 2 holds by live processes"), full.getMessage());
            importer.close();
            assertEquals(List.of(), table.holders(1));
            assertEquals(List.of(), table.holders(2));
        }
    }

    @Test
    void openingSomethingElseIsRefusedAndNothingIsLeft() {
        try (SharedSegment other = SharedSegment.create("other", 4096)) {
            CoordinationException e = assertThrows(CoordinationException.class, () -> ExportHolders.open(other.name()));
            assertEquals("shared-memory segment " + other.name() + " is not an export holder table", e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> ExportHolders.create(0));
        ShmLeaks.assertNoneOfThisJvm();
    }
}
