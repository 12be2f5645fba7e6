package org.cudaipc4j.app;

/** Entry point of the {@code cudaipc4j} tool. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.out.println("cudaipc4j");
    }
}
