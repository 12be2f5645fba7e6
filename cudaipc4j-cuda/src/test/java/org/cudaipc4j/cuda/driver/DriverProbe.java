package org.cudaipc4j.cuda.driver;

/** Child JVM for {@link CudaLibraryTest}: calls cuInit twice and prints what each call threw. */
public final class DriverProbe {
    private DriverProbe() {}

    public static void main(String[] args) {
        for (int i = 0; i < 2; i++) {
            try {
                System.out.println("cuInit returned " + CuDriver.cuInit(0));
            } catch (RuntimeException e) {
                System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }
}
