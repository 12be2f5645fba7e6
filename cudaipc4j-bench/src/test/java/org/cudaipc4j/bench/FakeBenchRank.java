package org.cudaipc4j.bench;

/**
 * Test rank without NCCL: prints a line of text and one figure as {@link NcclBench} prints them, naming its rank in
 * the figure's {@code nccl} field; with "fail:R:N" rank R then exits with N and the others wait until they are ended.
 */
public final class FakeBenchRank {
    private FakeBenchRank() {}

    public static void main(String[] args) throws InterruptedException {
        String rank = System.getenv("CUDAIPC4J_RANK");
        System.out.println("not a figure");
        System.out.println("{\"impl\": \"java\", \"nccl\": \"rank " + rank + "\", \"op\": \"allreduce\", \"ranks\": "
                + System.getenv("CUDAIPC4J_WORLD_SIZE") + ", \"bytes\": 4096, \"us\": 1.50, \"algGBps\": 2.000, "
                + "\"busGBps\": 3.000, \"runs_us\": [1.50]}");
        System.out.flush();
        if (args.length > 0 && args[0].startsWith("fail:")) {
            String[] fail = args[0].split(":");
            if (fail[1].equals(rank)) {
                System.exit(Integer.parseInt(fail[2]));
            }
            Thread.currentThread().join();
        }
    }
}
