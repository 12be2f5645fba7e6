package org.cudaipc4j.bench;

import java.util.Arrays;
import java.util.List;

/** Median, minimum and maximum of a set of measurements. */
public record Stats(int count, double median, double min, double max) {
    public static Stats of(List<Double> values) {
        if (values.isEmpty()) {
            return new Stats(0, Double.NaN, Double.NaN, Double.NaN);
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        int n = v.length;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        return new Stats(n, median, v[0], v[n - 1]);
    }

    @Override
    public String toString() {
        return String.format("median %.2f  min %.2f  max %.2f  (n=%d)", median, min, max, count);
    }
}
