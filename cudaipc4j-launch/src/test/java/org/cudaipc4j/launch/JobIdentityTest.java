package org.cudaipc4j.launch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The derived port and secret are the documented formula, stable, in range and spread. */
class JobIdentityTest {
    private static byte[] sha256(String s) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void portIsTheDocumentedFormulaAndInRange() throws Exception {
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            String text = "slurm\n" + i + "\n0";
            byte[] h = sha256("cudaipc4j rendezvous port\n" + text);
            int expected = 20000 + new BigInteger(1, Arrays.copyOf(h, 8)).mod(BigInteger.valueOf(12768)).intValue();
            int port = new JobIdentity(text).port();
            assertEquals(expected, port);
            assertTrue(port >= 20000 && port <= 32767, "port " + port);
            assertEquals(port, new JobIdentity(text).port(), "stable");
            ports.add(port);
        }
        assertTrue(ports.size() > 1700, "derived ports spread: " + ports.size() + " of 2000 distinct");
    }

    @Test
    void secretIsTheDocumentedFormula() throws Exception {
        byte[] secret = new JobIdentity("openmpi\nns").secret();
        assertArrayEquals(sha256("cudaipc4j rendezvous secret\nopenmpi\nns"), secret);
        assertEquals(32, secret.length);
    }
}
