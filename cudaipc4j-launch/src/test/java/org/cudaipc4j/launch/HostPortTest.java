package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class HostPortTest {
    @Test
    void parsesNamesAndAddressesAndPrintsThemBack() {
        for (String text : new String[] {"h:1", "10.0.0.1:65535", "[::1]:29400", "[fe80::1%eth0]:80",
                                         "node-01.cluster_a:29500"}) {
            assertEquals(text, HostPort.parse(text).toString());
        }
        assertEquals(new HostPort("::1", 29400), HostPort.parse("[::1]:29400"));
    }

    @Test
    void refusesInOneLine() {
        for (String bad : new String[] {"", "h", "h:", ":80", "h:0", "h:65536", "h:-1", "::1:80", "[::1]", "[::1]80",
                                        "[h]:80", "h h:80", "[::1:80", "h:+80", "h:1\n"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HostPort.parse(bad), bad);
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new HostPort("h", 0));
        assertThrows(IllegalArgumentException.class, () -> new HostPort("a b", 1));
        assertThrows(IllegalArgumentException.class, () -> new HostPort("x".repeat(254), 1));
    }
}
