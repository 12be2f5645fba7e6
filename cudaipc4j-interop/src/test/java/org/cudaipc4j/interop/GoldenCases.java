package org.cudaipc4j.interop;

import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The seven golden cases of {@code docs/interop-format.md} ("Golden cases"), with its fixed values: each side writes
 * them to {@code interop-golden/<side>/<case>.json}.
 */
final class GoldenCases {
    static final UUID GPU = UUID.fromString("01234567-89ab-cdef-0123-456789abcdef");
    static final long NS = 4026531836L;

    private GoldenCases() {}

    /** Bytes {@code from}, {@code from + 1}, ... 64 of them. */
    static byte[] run(int from) {
        byte[] b = new byte[64];
        for (int i = 0; i < 64; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    static Map<String, Descriptor> all() {
        Map<String, Descriptor> m = new LinkedHashMap<>();
        Descriptor.Event event = new Descriptor.Event(run(0xc0), true);
        m.put("legacy", Descriptor.legacy(GPU, 33554437, new Descriptor.Exporter(4242, NS, 1), run(0)));
        m.put("legacy-tensor-event", Descriptor.legacy(GPU, 4194304, new Descriptor.Exporter(4242, NS, 2), run(0))
                .withTensor(TensorLayout.of(DType.BFLOAT16, new long[] {1024, 4}, new long[] {1024, 1}, 3))
                .withEvent(event));
        m.put("vmm-fd", Descriptor.vmmFd(GPU, 2097152, new Descriptor.Exporter(4242, NS, 3,
                "cudaipc4j-4242-0011223344556677-holders")).withFdNumbers(45));
        m.put("vmm-fabric", Descriptor.vmmFabric(GPU, 4194304, new Descriptor.Exporter(4242, NS, 4), run(0x40)));
        m.put("pool-fd", Descriptor.poolFd(GPU, 1048576, new Descriptor.Exporter(4242, NS, 5), 7, run(0x80))
                .withTensor(TensorLayout.of(DType.FLOAT8_E4M3FN, new long[] {0}, new long[] {1}, 0)));
        byte[] c = new byte[66];
        c[0] = 2;
        c[1] = 'c';
        System.arraycopy(run(0), 0, c, 2, 64);
        m.put("torch-c", Descriptor.torch(GPU, new Descriptor.Exporter(459, NS, 6),
                new Descriptor.Torch(c, 4194304, 0, "/torch_459_1234567_0", 0, 0))
                .withTensor(TensorLayout.contiguous(DType.FLOAT32, 1024, 1024)).withEvent(event));
        byte[] e = HexFormat.of().parseHex("0265cb01000000000000000040010000000001000000000000002d000000");
        m.put("torch-e", Descriptor.torch(null, new Descriptor.Exporter(459, NS, 7),
                new Descriptor.Torch(e, 8388608, 2097152, "/torch_459_1234567_0", 1, 0))
                .withTensor(TensorLayout.contiguous(DType.BFLOAT16, 2048, 2048)));
        return m;
    }
}
