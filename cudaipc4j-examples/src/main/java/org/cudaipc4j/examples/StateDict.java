package org.cudaipc4j.examples;

import java.util.List;
import org.cudaipc4j.interop.DType;

/**
 * The weight-sync examples' state dicts: a tensor count spread from the smallest size to the largest, evenly in log,
 * the dtypes taken in turn. The torch trainer ({@code weight_sync.py}'s {@code STATE_DICTS}) has the same ones.
 */
public enum StateDict {
    /** A dense model's: 1 KiB to 256 MiB, seven dtypes in turn (about 2.1 GiB for 100 tensors); the default. */
    MIXED("mixed", 1L << 10, 256L << 20, List.of(DType.FLOAT32, DType.BFLOAT16, DType.FLOAT16, DType.INT32,
            DType.INT64, DType.UINT8, DType.FLOAT64)),
    /**
     * A mixture of experts' many small tensors: bf16, 512 B to 2 MiB (about 4.7 GiB for 20,000 tensors, as such
     * checkpoints have).
     */
    SMALL_BF16("bf16-small", 512, 2L << 20, List.of(DType.BFLOAT16));

    private final String code;
    private final long smallest;
    private final long largest;
    private final List<DType> dtypes;

    StateDict(String code, long smallest, long largest, List<DType> dtypes) {
        this.code = code;
        this.smallest = smallest;
        this.largest = largest;
        this.dtypes = dtypes;
    }

    /** {@return the name the examples' arguments and {@code weight_sync.py} give it} */
    public String code() {
        return code;
    }

    /** {@return the dtypes its tensors take in turn} */
    public List<DType> dtypes() {
        return dtypes;
    }

    /**
     * {@return the sizes of {@code count} tensors in bytes, from the smallest to the largest, evenly spaced in log,
     * each a multiple of 8 (the checksum's words); one tensor has the largest size}
     *
     * @param count the number of tensors
     * @throws IllegalArgumentException when {@code count} is below 1
     */
    public long[] sizes(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a state dict has at least 1 tensor, got " + count);
        }
        long[] out = new long[count];
        double ratio = count == 1 ? 1 : Math.pow((double) largest / smallest, 1.0 / (count - 1));
        for (int i = 0; i < count; i++) {
            out[i] = count == 1 ? largest : Math.max(8, (long) (smallest * Math.pow(ratio, i)) / 8 * 8);
        }
        return out;
    }

    /**
     * {@return the state dict named {@code code}}
     *
     * @param code {@code mixed} or {@code bf16-small}
     * @throws IllegalArgumentException for another name
     */
    public static StateDict parse(String code) {
        for (StateDict d : values()) {
            if (d.code.equals(code)) {
                return d;
            }
        }
        throw new IllegalArgumentException("the state dict is mixed or bf16-small, got '" + code + "'");
    }
}
