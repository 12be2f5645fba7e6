package org.cudaipc4j.launch;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * What tells one launch of a group of ranks from another, as every rank of it sees it, and the rendezvous port and
 * secret derived from it (see {@code docs/multinode.md}, "Launchers"). Its text is one of
 * <ul>
 *   <li>{@code torchrun\n<MASTER_ADDR>\n<MASTER_PORT>}, with {@code \n<TORCHELASTIC_RUN_ID>} after it when that is
 *       set (the port as a plain number);</li>
 *   <li>{@code openmpi\n<PMIX_NAMESPACE>}, else {@code openmpi\n<OMPI_MCA_ess_base_jobid>};</li>
 *   <li>{@code slurm\n<SLURM_JOB_ID>\n<SLURM_STEP_ID>} (an empty step when it is not set): each step of a job has
 *       a port of its own, so that steps running at once do not meet;</li>
 *   <li>{@code address\n<host:port>}: the rendezvous address itself, where the launcher gives no identity (our own
 *       variables, or {@code CUDAIPC4J_RENDEZVOUS} alone).</li>
 * </ul>
 *
 * <p>Both are SHA-256 of the UTF-8 bytes of a fixed prefix and the text. The port: the hash of
 * {@code "cudaipc4j rendezvous port\n" + text}, its first 8 bytes read as an unsigned big-endian number, modulo
 * {@value #PORT_COUNT}, plus {@value #FIRST_PORT}: a port from 20000 to 32767, below Linux's default range of
 * ephemeral ports (32768-60999), where outgoing connections would otherwise hold it now and then. The secret: the
 * whole 32-byte hash of {@code "cudaipc4j rendezvous secret\n" + text}. The Python package computes the same.
 *
 * <p>A derived secret keeps the ranks of other jobs out (a rank of another job derives another one), not an
 * attacker: job ids and addresses are no secret. For that, set {@code CUDAIPC4J_RENDEZVOUS_SECRET}.
 *
 * @param text the identity, as above
 */
public record JobIdentity(String text) {
    /** The lowest derived port. */
    public static final int FIRST_PORT = 20000;
    /** How many ports the derived ones are spread over: 20000 to 32767. */
    public static final int PORT_COUNT = 12768;

    private static final String PORT_PREFIX = "cudaipc4j rendezvous port\n";
    private static final String SECRET_PREFIX = "cudaipc4j rendezvous secret\n";

    /**
     * Checks the text is there.
     *
     * @throws NullPointerException when {@code text} is null
     */
    public JobIdentity {
        java.util.Objects.requireNonNull(text, "text");
    }

    /** {@return the port derived from this identity, from {@value #FIRST_PORT} to 32767} */
    public int port() {
        long n = ByteBuffer.wrap(sha256(PORT_PREFIX + text)).getLong();
        return FIRST_PORT + (int) Long.remainderUnsigned(n, PORT_COUNT);
    }

    /** {@return the 32-byte secret derived from this identity (a new array each call)} */
    public byte[] secret() {
        return sha256(SECRET_PREFIX + text);
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this Java has no SHA-256, which every Java SE has", e);
        }
    }
}
