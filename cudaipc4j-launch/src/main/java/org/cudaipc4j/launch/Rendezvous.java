package org.cudaipc4j.launch;

/**
 * The rendezvous that hands rank 0's payload (NCCL's unique id) to every rank and then keeps the ranks watching
 * each other. Rank 0 listens on the group's address; every other rank connects to it, retrying until the join
 * timeout (rank 0 may start later), proves it knows the shared secret without sending it, and states its rank, the
 * group's size and its NCCL version. Once all ranks arrived rank 0 sends each the payload and {@link #join} returns
 * a {@link RankGroup} everywhere. The wire protocol is in {@code docs/multinode.md}, "Rendezvous protocol".
 *
 * <p>Connections that do not belong (a wrong secret, a wrong size or rank, a rank already there, another protocol
 * version, bytes of another protocol, frames over the size limit, a stranger who says nothing within its deadline)
 * are refused one by one, with one line telling the peer why where the protocol allows: rank 0 drops them and keeps
 * waiting for the real ranks. A flood of such connections cannot keep the real ranks out: rank 0 holds at most 64 of
 * them at once, each costing one descriptor and no thread, and one that arrives takes the place of the one that has
 * shown the least. A rank refuses a rank 0 that cannot prove the secret within a second of its JOIN. A rank with an
 * NCCL version other than rank 0's ends the whole rendezvous: the communicator could never form, so rank 0 tells
 * every rank that joined, and fails too, with one line naming both versions.
 */
public final class Rendezvous {
    private Rendezvous() {}

    /**
     * Joins the group: rank 0 waits for all the others, the others for rank 0's payload.
     *
     * @param options this rank, the group and the timings
     * @return the group, watching the other ranks until closed
     * @throws RendezvousException one line naming what went wrong: the ranks that did not arrive in time, rank 0
     *     not answering, or why this rank was refused
     * @throws InterruptedException when interrupted between attempts to reach rank 0
     */
    public static RankGroup join(RendezvousOptions options) throws InterruptedException {
        return RankGroup.join(options);
    }

    /**
     * An NCCL version number as NCCL writes it: 22809 is {@code 2.28.9} ({@code X*10000 + Y*100 + Z}); numbers
     * below 10000, from before 2.9, are {@code X*1000 + Y*100 + Z}.
     *
     * @param code as {@code ncclGetVersion} reports it
     * @return the dotted version
     */
    public static String ncclVersionText(int code) {
        return Wire.ncclVersion(code);
    }
}
