package org.cudaipc4j.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ParentWatchTest {
    /** Not set: nothing watched. Not this process's parent: gone, at once. No pid of another process: refused. */
    @Test
    void whenGoneEndsAtOnceWhenTheStarterIsNoLongerTheParentAndRefusesWhatIsNoPid() {
        List<String> ended = new ArrayList<>();
        ParentWatch.End record = (pid, why) -> ended.add(pid + " " + why);
        ParentWatch.whenGone("V", null, record);
        ParentWatch.whenGone("V", " ", record);
        assertEquals(List.of(), ended);

        long notTheParent = (1L << 22) + 1;
        ParentWatch.whenGone("V", Long.toString(notTheParent), record);
        assertEquals(List.of(notTheParent + " is gone"), ended);

        for (String bad : List.of("x", "0", "1", "-3", Long.toString(ProcessHandle.current().pid()))) {
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> ParentWatch.whenGone("V", bad, record), bad);
            assertEquals("V=" + bad + " is not the pid of the process that started this one", e.getMessage());
        }
        assertEquals(1, ended.size());
    }

    /** This process's parent is not gone; a pid that is not its parent is. */
    @Test
    void goneIsFalseForTheParentAndTrueForAnyOtherProcess() {
        long parent = ProcessHandle.current().parent().orElseThrow().pid();
        assertFalse(ParentWatch.gone(parent));
        assertTrue(ParentWatch.gone(ProcessHandle.current().pid()));
    }
}
