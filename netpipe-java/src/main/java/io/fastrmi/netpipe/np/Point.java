package io.fastrmi.netpipe.np;

import java.util.Arrays;
import java.util.Locale;

/**
 * One measured point: {@code bytes} moved per message, the round trips of each trial, and each trial's
 * mean round trip. As in NetPIPE, the point's time is the best trial's, and its latency half a round
 * trip (for a one-way transfer, the whole call: {@code oneWay}).
 */
public record Point(int bytes, int repeats, double[] trialRoundTripSeconds, boolean oneWay) {

    public Point {
        if (bytes < 0 || repeats < 1 || trialRoundTripSeconds.length == 0) {
            throw new IllegalArgumentException("a point needs bytes >= 0, repeats >= 1 and at least one trial");
        }
        trialRoundTripSeconds = trialRoundTripSeconds.clone();
    }

    /** The best trial's mean round trip (a call's time, for a one-way transfer). */
    public double bestRoundTripSeconds() {
        return Arrays.stream(trialRoundTripSeconds).min().orElseThrow();
    }

    /** NetPIPE's time: half the best round trip, or the whole call for a one-way transfer. */
    public double seconds() {
        return oneWay ? bestRoundTripSeconds() : bestRoundTripSeconds() / 2;
    }

    /** NetPIPE's throughput: bits per second in units of 2^20 bits, as its np.out files have it. */
    public double mbps() {
        return bytes * 8.0 / (seconds() * 1024 * 1024);
    }

    /** The np.out line: bytes, Mbps, seconds, as NetPIPE 3.x writes it ({@code "%8d %lf %.8lf"}). */
    public String npOutLine() {
        return String.format(Locale.ROOT, "%8d %f %.8f", bytes, mbps(), seconds());
    }
}
