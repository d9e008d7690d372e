package io.fastrmi.netpipe.bench;

/**
 * What one kernel gave in one round of one column: its median and 99th percentile, or the error
 * that stopped it, or why the column's transport was not really in use (n/a).
 */
record Outcome(double medianMicros, double p99Micros, int calls, String error, String unavailable) {

    static Outcome timed(double medianMicros, double p99Micros, int calls) {
        return new Outcome(medianMicros, p99Micros, calls, null, null);
    }

    static Outcome failed(String error) {
        return new Outcome(Double.NaN, Double.NaN, 0, error, null);
    }

    static Outcome unavailable(String reason) {
        return new Outcome(Double.NaN, Double.NaN, 0, null, reason);
    }

    boolean isTimed() {
        return error == null && unavailable == null;
    }

    /** "error: ..." or "n/a: ...", for notes; null when timed. */
    String problem() {
        return error != null ? "error: " + error : unavailable != null ? "n/a: " + unavailable : null;
    }
}
