package io.fastrmi.netpipe.np;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * NetPIPE 3.x's message sizes: from the lower bound up, the increment doubling every second step, so
 * that the base sizes are the powers of two and 3·2^k (1, 2, 3, 4, 6, 8, 12, 16, 24, ...); each base
 * size also with ± the perturbation once the step between base sizes is larger than the perturbation + 1
 * (the irregular sizes show where a protocol's buffer or packet boundaries fall).
 */
public final class SizeSchedule {

    /** NetPIPE's default perturbation, in bytes. */
    public static final int DEFAULT_PERTURBATION = 3;

    private SizeSchedule() {
    }

    /**
     * The sizes in increasing order, none below {@code lower} or above {@code upper}, each once.
     *
     * @throws IllegalArgumentException when {@code lower < 1}, {@code upper < lower} or {@code perturbation < 0}
     */
    public static List<Integer> sizes(int lower, int upper, int perturbation) {
        if (lower < 1 || upper < lower || perturbation < 0) {
            throw new IllegalArgumentException("sizes need 1 <= lower <= upper and perturbation >= 0; got lower " + lower
                    + ", upper " + upper + ", perturbation " + perturbation);
        }
        TreeSet<Integer> sizes = new TreeSet<>();
        long increment = lower > 1 ? lower / 2 : 1;
        int step = lower > 1 ? 1 : 0;
        for (long base = lower; base <= upper; base += increment, step++) {
            if (step > 2 && step % 2 == 1) {
                increment += increment;
            }
            boolean perturbed = perturbation > 0 && increment > perturbation + 1;
            for (long size : perturbed ? new long[] {base - perturbation, base, base + perturbation} : new long[] {base}) {
                if (size >= lower && size <= upper) {
                    sizes.add((int) size);
                }
            }
        }
        return new ArrayList<>(sizes);
    }
}
