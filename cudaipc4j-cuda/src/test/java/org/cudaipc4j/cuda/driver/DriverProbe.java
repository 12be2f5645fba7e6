package org.cudaipc4j.cuda.driver;

import org.cudaipc4j.cuda.Cuda;
import org.cudaipc4j.cuda.CudaException;

/**
 * Child JVM for {@link CudaLibraryTest}: starts the driver twice and prints what each call threw. Through the public
 * {@link Cuda#init()}, or with the argument {@code raw} through the binding alone, before {@link Cuda} has loaded.
 */
public final class DriverProbe {
    private DriverProbe() {}

    public static void main(String[] args) {
        boolean raw = args.length > 0 && args[0].equals("raw");
        for (int i = 0; i < 2; i++) {
            try {
                if (raw) {
                    System.out.println("cuInit returned " + DeviceCalls.cuInit(0));
                } else {
                    Cuda.init();
                    System.out.println("cuInit returned 0");
                }
            } catch (CudaException e) {
                System.out.println("cuInit returned " + e.code());
            } catch (RuntimeException e) {
                System.out.println(e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }
}
