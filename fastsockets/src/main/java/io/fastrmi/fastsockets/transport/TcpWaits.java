package io.fastrmi.fastsockets.transport;

import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeLibraries;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.Nudge;
import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.io.InputStream;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * How the reads of this JVM's connections negotiated fast over TCP wait: through a
 * {@link PollingInput} whose budgets are the library's, within the config's {@code spin} and
 * {@code wait} (as the native streams'), all of them one group of {@link Spinners} (the config's
 * {@code wait} is one for the JVM, so only one of the two here is used), on every JDK (through JNI
 * below 22). Where no library can be had (a library that does not load), or with {@code wait =
 * block}, they block at once, as stock RMI's reads.
 */
public final class TcpWaits {

    private static final Library LIBRARY = new Library();
    /** Under adaptive waiting: cold for the JVM's first reads ({@link Spinners#COLD_READS}). */
    private static final Spinners ADAPTIVE_SPINNERS = new Spinners(LIBRARY, Spinners.COLD_READS);
    /** Under {@code wait = spin}, which asks every read to spin, the first ones too. */
    private static final Spinners ALWAYS_SPINNERS = new Spinners(LIBRARY, 0);
    private static volatile int spinnersMax = -1;

    private TcpWaits() {
    }

    /**
     * {@code tcp}, the input of such a connection, as its reads should wait; {@code socketFd}: its
     * socket's descriptor number ({@link SocketDescriptors}), for sleeps another thread can end;
     * {@code readTimeout}: its SO_TIMEOUT now (ms, 0: none), which those sleeps keep.
     */
    public static InputStream input(InputStream tcp, IntSupplier socketFd, IntSupplier readTimeout) {
        boolean spin = NativeTransports.waitMode() == WaitMode.SPIN;
        return mayPoll() ? new PollingInput(tcp, LIBRARY, spin ? ALWAYS_SPINNERS : ADAPTIVE_SPINNERS,
                new NudgeableSleep(LIBRARY, socketFd, readTimeout),
                spin ? PollingInput.NEVER_PAUSED : PollingInput.PAUSE_NANOS) : tcp;
    }

    /** Whether reads here may poll at all (the library then decides how long): worth loading it for. */
    static boolean mayPoll() {
        return whyBlocking() == null;
    }

    /** Why reads here block at once whatever the library says, or null when they may poll. */
    private static String whyBlocking() {
        if (NativeTransports.waitMode() == WaitMode.BLOCK || NativeTransports.spinNanos() == 0) {
            return "the config says wait = block or spin = 0";
        }
        return null;
    }

    /** How the reads of fast connections over TCP wait here, in words (for doctor, after the library's load). */
    public static String describe() {
        String why = whyBlocking();
        if (why == null && NativeLibraries.get() == null) {
            why = "no native library: " + NativeLibraries.unavailableReason();
        }
        return why != null ? "block at once (" + why + ")"
                : "poll before they block, as native streams wait (wait = " + NativeTransports.waitMode().configName()
                        + ", spin = " + NativeTransports.spinNanos() / 1000 + " us); a callback's two sides nudge each"
                        + " other to spin";
    }

    /** A fresh budget, or null while the library is not loaded. */
    private static WaitBudget budget() {
        NativeLibrary library = NativeLibraries.get();
        return library == null ? null : library.waitBudget(NativeTransports.waitMode(), NativeTransports.spinNanos());
    }

    /** A nudge of the library, or null while it is not loaded. */
    private static Nudge nudge() throws java.io.IOException {
        NativeLibrary library = NativeLibraries.get();
        return library == null ? null : library.openNudge();
    }

    /**
     * The library's budgets, nudges and most spinners, as the reads ask for them. A class, not method
     * references: a fast connection's first read would pay a class spun for each (StartupIT).
     */
    private static final class Library implements Supplier<WaitBudget>, NudgeableSleep.Opener, IntSupplier {
        @Override
        public WaitBudget get() {
            return budget();
        }

        @Override
        public Nudge open() throws java.io.IOException {
            return nudge();
        }

        @Override
        public int getAsInt() {
            return spinnersMax();
        }
    }

    private static int spinnersMax() {
        int most = spinnersMax;
        if (most < 0) {
            NativeLibrary library = NativeLibraries.get();
            if (library == null) {
                return 0;
            }
            most = library.spinnersMax(Runtime.getRuntime().availableProcessors());
            spinnersMax = most;
        }
        return most;
    }
}
