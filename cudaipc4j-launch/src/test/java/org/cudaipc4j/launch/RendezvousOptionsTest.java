package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The options' defaults and checks, and the silence limit's variable. */
class RendezvousOptionsTest {
    private static final InetSocketAddress AT = new InetSocketAddress("127.0.0.1", 29500);

    @Test
    void theSilenceLimitVariableIsSecondsAndBadValuesAreRefusedInOneLine() {
        assertEquals(Duration.ofSeconds(3), RendezvousOptions.silenceLimitFrom(null));
        assertEquals(Duration.ofSeconds(3), RendezvousOptions.silenceLimitFrom(" "));
        assertEquals(Duration.ofMillis(1500), RendezvousOptions.silenceLimitFrom("1.5"));
        assertEquals(Duration.ofSeconds(10), RendezvousOptions.silenceLimitFrom("10"));
        for (String bad : new String[] {"soon", "0", "-1", "0.0001", "1e999"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RendezvousOptions.silenceLimitFrom(bad));
            assertEquals("CUDAIPC4J_HEARTBEAT_TIMEOUT=" + bad + " is not a number of seconds of at least 0.001",
                    e.getMessage());
        }
    }

    @Test
    void theIntervalDefaultsToAQuarterSecondOrHalfAShorterLimit() {
        RendezvousOptions o = RendezvousOptions.builder(1, 2, AT).silenceLimit(Duration.ofSeconds(3)).build();
        assertEquals(Duration.ofMillis(250), o.heartbeatInterval());
        assertEquals(Duration.ofSeconds(60), o.joinTimeout());
        o = RendezvousOptions.builder(1, 2, AT).silenceLimit(Duration.ofMillis(400)).build();
        assertEquals(Duration.ofMillis(200), o.heartbeatInterval());
    }

    @Test
    void wrongValuesAreRefusedNamingThem() {
        assertEquals("silence limit 500 ms must be longer than the heartbeat interval 500 ms",
                assertThrows(IllegalArgumentException.class, () -> RendezvousOptions.builder(1, 2, AT)
                        .heartbeatInterval(Duration.ofMillis(500)).silenceLimit(Duration.ofMillis(500)).build())
                        .getMessage());
        assertEquals("rank 2 is out of range for 2 ranks", assertThrows(IllegalArgumentException.class,
                () -> RendezvousOptions.builder(2, 2, AT).silenceLimit(Duration.ofSeconds(3)).build()).getMessage());
        assertEquals("rank 0 needs the payload to hand out", assertThrows(IllegalArgumentException.class,
                () -> RendezvousOptions.builder(0, 2, AT).silenceLimit(Duration.ofSeconds(3)).build()).getMessage());
        assertEquals("joinTimeout must be positive: PT0S", assertThrows(IllegalArgumentException.class,
                () -> RendezvousOptions.builder(1, 2, AT).silenceLimit(Duration.ofSeconds(3))
                        .joinTimeout(Duration.ZERO).build()).getMessage());
    }

    @Test
    void theLauncherGivesRankSizeAddressAndSecret() {
        LaunchEnvironment launch = LaunchEnvironment.detect(java.util.Map.of("CUDAIPC4J_RANK", "1",
                "CUDAIPC4J_WORLD_SIZE", "3", "CUDAIPC4J_RENDEZVOUS", "[fd00::1]:29400",
                "CUDAIPC4J_RENDEZVOUS_SECRET", "abc"));
        RendezvousOptions o = RendezvousOptions.builder(launch).silenceLimit(Duration.ofSeconds(3)).build();
        assertEquals(1, o.rank());
        assertEquals(3, o.size());
        assertEquals("fd00::1", o.address().getHostString());
        assertEquals(29400, o.address().getPort());
        assertEquals("[fd00::1]:29400", Wire.where(o.address()));
        assertEquals("abc", new String(o.secret(), java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void theSecretIsCopied() {
        byte[] secret = {1, 2, 3};
        RendezvousOptions o = RendezvousOptions.builder(1, 2, AT).secret(secret).silenceLimit(Duration.ofSeconds(3))
                .build();
        secret[0] = 9;
        assertEquals(1, o.secret()[0]);
    }
}
