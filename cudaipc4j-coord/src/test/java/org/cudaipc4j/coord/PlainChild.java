package org.cudaipc4j.coord;

/**
 * Test child of a group without a control block: runs its arguments in order. "print:TEXT" prints TEXT on stdout,
 * "err:TEXT" on stderr, "env:NAME" prints NAME=value, "exit:N" exits with N, "wait" waits until it is ended.
 */
public final class PlainChild {
    private PlainChild() {}

    public static void main(String[] args) throws InterruptedException {
        for (String a : args) {
            if (a.startsWith("print:")) {
                System.out.println(a.substring(6));
            } else if (a.startsWith("err:")) {
                System.err.println(a.substring(4));
            } else if (a.startsWith("env:")) {
                System.out.println(a.substring(4) + "=" + System.getenv(a.substring(4)));
            } else if (a.startsWith("exit:")) {
                System.out.flush();
                System.exit(Integer.parseInt(a.substring(5)));
            } else if (a.equals("wait")) {
                Thread.currentThread().join();
            } else {
                throw new IllegalArgumentException("unknown step " + a);
            }
        }
    }
}
