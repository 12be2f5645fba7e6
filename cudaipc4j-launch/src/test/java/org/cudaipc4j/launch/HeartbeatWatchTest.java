package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The silence logic on a clock the test drives. */
class HeartbeatWatchTest {
    private static final long S = 1_000_000_000L;

    @Test
    void aRankSilentForLongerThanTheLimitIsReportedOnce() {
        HeartbeatWatch w = new HeartbeatWatch(S);
        w.watch(1, 0);
        w.watch(2, 0);
        w.heard(1, 900_000_000L);
        assertEquals(List.of(), w.overdue(S), "exactly the limit is not over it");
        assertEquals(List.of(new HeartbeatWatch.Silent(2, S + 1)), w.overdue(S + 1));
        assertEquals(List.of(), w.overdue(S + 2), "reported once");
        assertEquals(List.of(new HeartbeatWatch.Silent(1, 2 * S - 900_000_000L)), w.overdue(2 * S));
    }

    @Test
    void aForgottenRankIsNeverReportedAndHearingItDoesNotBringItBack() {
        HeartbeatWatch w = new HeartbeatWatch(S);
        w.watch(3, 0);
        w.forget(3);
        w.heard(3, 10);
        assertEquals(List.of(), w.overdue(100 * S));
    }

    @Test
    void anOlderReadingDoesNotMoveTheLastHeardBack() {
        HeartbeatWatch w = new HeartbeatWatch(S);
        w.watch(1, 5 * S);
        w.heard(1, 4 * S);
        assertEquals(List.of(), w.overdue(6 * S));
    }

    @Test
    void theClockMayWrap() {
        HeartbeatWatch w = new HeartbeatWatch(S);
        w.watch(1, Long.MAX_VALUE - 10);
        assertEquals(List.of(), w.overdue(Long.MAX_VALUE - 10 + S));
        assertEquals(1, w.overdue(Long.MAX_VALUE - 10 + S + 1).size());
    }

    @Test
    void aWatcherThatWasItselfStoppedBlamesNobodyAndCountsEverySilenceAgain() {
        HeartbeatWatch w = new HeartbeatWatch(S);
        w.watch(1, 0);
        w.watch(2, 0);
        assertEquals(List.of(), w.check(S / 4));
        assertEquals(List.of(), w.check(8 * S), "its own checks stopped for 7.75 s: nobody is blamed");
        w.forget(2); // the goodbye that waited unread
        for (long t = 8 * S + S / 4; t <= 9 * S; t += S / 4) {
            assertEquals(List.of(), w.check(t), "silences count from the resumption at 8 s: " + t);
        }
        assertEquals(List.of(new HeartbeatWatch.Silent(1, S + S / 4)), w.check(9 * S + S / 4));
    }

    @Test
    void aWatcherStoppedBeforeItsFirstCheckBlamesNobody() {
        HeartbeatWatch w = new HeartbeatWatch(S);
        w.watch(1, 0);
        assertEquals(List.of(), w.check(3 * S));
    }

    @Test
    void checksHalfTheLimitApartStillReportTheSilent() {
        HeartbeatWatch w = new HeartbeatWatch(S);
        w.watch(1, 0);
        assertEquals(List.of(), w.check(S / 2));
        assertEquals(List.of(), w.check(S));
        assertEquals(List.of(new HeartbeatWatch.Silent(1, S + S / 2)), w.check(S + S / 2));
    }

    @Test
    void theLimitMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> new HeartbeatWatch(0));
    }
}
