package io.fastrmi.netpipe.bench.report;

/**
 * What one kernel gave in one round of one column: its median and 99th percentile and its cost per call, or the error
 * that stopped it, or why the column's transport was not really in use (n/a).
 */
public record Outcome(double medianMicros, double p99Micros, int calls, double cpuMicrosPerCall, double switchesPerCall,
        String error, String unavailable) {

    /** cpuMicrosPerCall and switchesPerCall: what a timed call cost both JVMs ({@link io.fastrmi.netpipe.bench.kernels.ProcessCost}). */
    public static Outcome timed(double medianMicros, double p99Micros, int calls, double cpuMicrosPerCall, double switchesPerCall) {
        return new Outcome(medianMicros, p99Micros, calls, cpuMicrosPerCall, switchesPerCall, null, null);
    }

    public static Outcome failed(String error) {
        return new Outcome(Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN, error, null);
    }

    public static Outcome unavailable(String reason) {
        return new Outcome(Double.NaN, Double.NaN, 0, Double.NaN, Double.NaN, null, reason);
    }

    public boolean isTimed() {
        return error == null && unavailable == null;
    }

    /** "error: ..." or "n/a: ...", for notes; null when timed. */
    public String problem() {
        return error != null ? "error: " + error : unavailable != null ? "n/a: " + unavailable : null;
    }
}
