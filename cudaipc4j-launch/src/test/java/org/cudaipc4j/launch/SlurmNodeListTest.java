package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Slurm's compressed host lists; the golden file has the shared cases. */
class SlurmNodeListTest {
    @Test
    void theIssuesExampleKeepsZeroPadding() {
        assertEquals(List.of("node01", "node02", "node03", "node04", "node07"), SlurmNodeList.expand("node[01-04,07]"));
        assertEquals("node01", SlurmNodeList.first("node[01-04,07]"));
    }

    @Test
    void severalGroupsAndPlainNames() {
        assertEquals(List.of("a1", "a2", "b3", "c"), SlurmNodeList.expand("a[1-2],b3,c"));
        assertEquals(List.of("plain"), SlurmNodeList.expand("plain"));
    }

    @Test
    void severalBracketsGiveEveryCombinationFirstSlowest() {
        assertEquals(List.of("rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"),
                SlurmNodeList.expand("rack[1-2]-n[01-02]"));
    }

    @Test
    void widthIsTheLowEndsDigits() {
        assertEquals(List.of("n8", "n9", "n10"), SlurmNodeList.expand("n[8-10]"));
        assertEquals(List.of("n098", "n099", "n100"), SlurmNodeList.expand("n[098-100]"));
    }

    @Test
    void malformedListsAreRefusedInOneLine() {
        for (String bad : new String[] {"", "node[", "node]", "node[01-04", "n[3-1]", "n[]", "n[1-]", "a,,b", "a,",
                                        "n[[1]]", "a b", "a\nb", "n[1-2-3]", "n[x]"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> SlurmNodeList.expand(bad), bad);
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertTrue(e.getMessage().startsWith("Slurm node list "), e.getMessage());
        }
    }

    @Test
    void hugeExpansionsAreRefusedBeforeAnyNameIsMade() {
        assertThrows(IllegalArgumentException.class, () -> SlurmNodeList.expand("n[0-999999999999999999]"));
        assertThrows(IllegalArgumentException.class, () -> SlurmNodeList.expand("a[0-9999]b[0-9999]"));
        assertThrows(IllegalArgumentException.class, () -> SlurmNodeList.first("a[0-9999]b[0-9999]"));
        assertThrows(IllegalArgumentException.class,
                () -> SlurmNodeList.expand("x".repeat(100) + "[0-999999]"), "too many characters");
        assertThrows(IllegalArgumentException.class, () -> SlurmNodeList.expand("n[0-9999999999999999999]"));
    }

    @Test
    void theLargestListAllowedExpands() {
        assertEquals(SlurmNodeList.MAX_NAMES, SlurmNodeList.expand("n[1-1000000]").size());
    }

    @Test
    void manyBracketsInOneName() {
        assertEquals(List.of("n" + "1".repeat(5000)), SlurmNodeList.expand("n" + "[1]".repeat(5000)));
    }
}
