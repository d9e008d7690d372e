package io.fastrmi.config;

import java.util.Optional;

/**
 * Transports measured slower than the plain {@code tcp} transport (RMI's own socket), which
 * therefore belong after {@code tcp} in a config's list, if in it at all. {@code doctor} says so for
 * each one a config names. Measured with {@code make bench} across two network-namespace hosts
 * (veth, 2 cores): every call waits for the peer through the provider's own wake-up (an event fd
 * fed by its progress thread), which costs more than the kernel's wake-up of a socket reader.
 */
public final class SlowTransports {

    private SlowTransports() {
    }

    /** Why {@code transport} loses to {@code tcp}, or empty when it was not measured to. */
    public static Optional<String> whySlower(TransportName transport) {
        return switch (transport.toString()) {
            case "ofi:tcp;ofi_rxm" -> Optional.of("slower than tcp across hosts (make bench of 2026-11-27, quiet: null call"
                    + " 1.3x stock RMI's time, callback 2.4x, 8 clients 2.3x, where tcp is 0.59x, 0.94x, 0.96x): list tcp before it");
            case "ucx:tcp" -> Optional.of("slower than tcp across hosts (make bench of 2026-11-27, quiet: null call"
                    + " 1.1x stock RMI's time, callback 2.1x, 8 clients 2.0x, where tcp is 0.59x, 0.94x, 0.96x): list tcp before it");
            default -> Optional.empty();
        };
    }
}
