package io.fastrmi.netpipe.np;

/**
 * How many round trips one trial of a point makes, as NetPIPE decides it: enough that a trial takes
 * about {@code trialSeconds}, predicted from the previous point's time scaled by the growth in size,
 * and never fewer than {@code minRepeats}.
 */
public record RepeatPlan(double trialSeconds, int minRepeats, int maxRepeats) {

    /** NetPIPE's RUNTM: a quarter of a second per trial. */
    public static final double DEFAULT_TRIAL_SECONDS = 0.25;

    public RepeatPlan {
        if (!(trialSeconds > 0) || minRepeats < 1 || maxRepeats < minRepeats) {
            throw new IllegalArgumentException("a repeat plan needs trialSeconds > 0 and 1 <= minRepeats <= maxRepeats; got "
                    + trialSeconds + ", " + minRepeats + ", " + maxRepeats);
        }
    }

    /**
     * The repeats for a point of {@code size} bytes after one of {@code previousSize} bytes whose round trip
     * took {@code previousRoundTripSeconds}; before the first point, pass the warm-up's round trip.
     */
    public int repeats(int size, int previousSize, double previousRoundTripSeconds) {
        if (!(previousRoundTripSeconds > 0)) {
            return maxRepeats;
        }
        double growth = Math.max(1.0, (double) size / Math.max(1, previousSize));
        double repeats = trialSeconds / (previousRoundTripSeconds * growth);
        return (int) Math.max(minRepeats, Math.min(maxRepeats, Math.round(repeats)));
    }
}
