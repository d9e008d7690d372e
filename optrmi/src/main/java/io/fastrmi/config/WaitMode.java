package io.fastrmi.config;

import java.util.Locale;

/**
 * The config's {@code wait}: how a thread waiting on a native stream or a fast tcp connection waits, within
 * {@code spin}.
 * The order is {@code enum fastrmi_wait_mode} of {@code fastrmi.h}: {@link #nativeCode()} is what
 * the library takes (WaitModeTest pins it to the header).
 */
public enum WaitMode {
    /** Spins about four times the stream's recent reply time, and not at all where spinning does not pay. */
    ADAPTIVE,
    /** Always spins the whole {@code spin}, then blocks. */
    SPIN,
    /** Never spins. */
    BLOCK;

    /** The value of {@code enum fastrmi_wait_mode}. */
    public int nativeCode() {
        return ordinal();
    }

    /** The name in the config file. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
