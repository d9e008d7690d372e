package io.fastrmi.netpipe.apps;

import java.io.Serializable;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiPredicate;
import java.util.function.IntFunction;

/** A worker's part of a result held in rows (SOR's grid, ASP's distances): {@code rows()[k]} is row {@code first() + k}. */
interface RowBlock<R> extends Serializable {

    int first();

    R[] rows();

    /**
     * What differs between the parts' rows, taken in order, and rows {@code from} to {@code to - 1}
     * of {@code expected}; null when they are exactly those rows.
     */
    static <R> String check(List<Serializable> parts, int from, int to, IntFunction<R> expected, BiPredicate<R, R> same) {
        int next = from;
        @SuppressWarnings("unchecked")
        List<RowBlock<R>> blocks = parts.stream().map(p -> (RowBlock<R>) p)
                .sorted(Comparator.comparingInt(RowBlock::first)).toList();
        for (RowBlock<R> block : blocks) {
            if (block.first() != next) {
                return "rows from " + next + " missing: a part starts at " + block.first();
            }
            for (R row : block.rows()) {
                if (next >= to || !same.test(row, expected.apply(next))) {
                    return "row " + next + " differs from the sequential run's";
                }
                next++;
            }
        }
        return next == to ? null : "rows " + next + " to " + (to - 1) + " missing";
    }
}
