package org.cudaipc4j.simpleipc.nccl;

/**
 * Test rank without NCCL: prints what the tool told it ("rank R of N, parent P, rendezvous A"), then, by its
 * argument: "pass" exits 0, "fail:R:N" exits with N on rank R and waits on the others until they are ended,
 * "wait" waits until it is ended.
 */
public final class FakeRank {
    private FakeRank() {}

    public static void main(String[] args) throws InterruptedException {
        String rank = System.getenv("CUDAIPC4J_RANK");
        System.out.println("rank " + rank + " of " + System.getenv("CUDAIPC4J_WORLD_SIZE") + ", parent "
                + System.getenv("CUDAIPC4J_STARTER_PID") + ", rendezvous " + System.getenv("CUDAIPC4J_RENDEZVOUS"));
        System.out.flush();
        String mode = args[0];
        if (mode.equals("pass")) {
            return;
        }
        if (mode.startsWith("fail:") && mode.split(":")[1].equals(rank)) {
            System.exit(Integer.parseInt(mode.split(":")[2]));
        }
        Thread.currentThread().join();
    }
}
