package io.fastrmi.config;

import java.util.Optional;

/**
 * A transport as the config, the handshake and the native library name it, parsed once: {@code tcp}
 * (RMI's own socket), {@code ofi:PROVIDER} (libfabric; "shm", "tcp;ofi_rxm") or {@code ucx:TRANSPORT}
 * (UCX restricted to those transports, UCX_TLS; "shm", "tcp").
 */
public record TransportName(Backend backend, String provider) {

    /** Who moves the bytes; {@link #nativeCode} is fastrmi.h's {@code enum fastrmi_backend}. */
    public enum Backend {
        TCP("tcp", 0),
        OFI("ofi", 1),
        UCX("ucx", 2);

        private final String text;
        private final int nativeCode;

        Backend(String text, int nativeCode) {
            this.text = text;
            this.nativeCode = nativeCode;
        }

        /** fastrmi_ctx_open's backend; 0 for tcp, which the library does not serve. */
        public int nativeCode() {
            return nativeCode;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** RMI's own socket: the transport every negotiation can fall back to. */
    public static final TransportName TCP = new TransportName(Backend.TCP, "");

    /** What {@link #parse} accepts, in words for error messages. */
    public static final String GRAMMAR =
            "tcp, ofi:PROVIDER such as ofi:shm or ofi:tcp;ofi_rxm, or ucx:TRANSPORT such as ucx:shm";

    private static final String SHARED_MEMORY = "shm";

    public TransportName {
        java.util.Objects.requireNonNull(backend, "backend");
        java.util.Objects.requireNonNull(provider, "provider");
        if (!isValid(backend, provider)) {
            throw new IllegalArgumentException("unknown transport '" + backend + ":" + provider + "' (expected " + GRAMMAR + ")");
        }
    }

    /**
     * The one rule of the grammar: tcp alone; ofi with one or two provider names joined by ';'
     * ({@code [a-z0-9_]+(;[a-z0-9_]+)?}); ucx with a transport name ({@code [a-z0-9_]+}). Checked
     * without a regex: premain parses the built-in config's transports, and compiling one costs the
     * interpreter a few hundred µs.
     */
    private static boolean isValid(Backend backend, String provider) {
        return switch (backend) {
            case TCP -> provider.isEmpty();
            case OFI -> {
                int semicolon = provider.indexOf(';');
                yield semicolon < 0 ? isName(provider)
                        : isName(provider.substring(0, semicolon)) && isName(provider.substring(semicolon + 1));
            }
            case UCX -> isName(provider);
        };
    }

    /** {@code [a-z0-9_]+}. */
    private static boolean isName(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_')) {
                return false;
            }
        }
        return !text.isEmpty();
    }

    /** The transport {@code text} names; an {@link IllegalArgumentException} saying what is expected otherwise. */
    public static TransportName parse(String text) {
        // No lambda: the agent parses its config in premain, where a JVM's first lambda costs milliseconds.
        Optional<TransportName> name = tryParse(text);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("unknown transport '" + text + "' (expected " + GRAMMAR + ")");
        }
        return name.get();
    }

    /** The transport {@code text} names, or empty (a newer peer's transport, or garbage). */
    public static Optional<TransportName> tryParse(String text) {
        if (text.equals(TCP.toString())) {
            return Optional.of(TCP);
        }
        int colon = text.indexOf(':');
        for (Backend backend : Backend.values()) {
            if (backend != Backend.TCP && colon > 0 && text.substring(0, colon).equals(backend.toString())
                    && isValid(backend, text.substring(colon + 1))) {
                return Optional.of(new TransportName(backend, text.substring(colon + 1)));
            }
        }
        return Optional.empty();
    }

    /** Whether the native library carries it (everything but tcp). */
    public boolean isNative() {
        return backend != Backend.TCP;
    }

    /** Whether it only reaches processes that see this host's shared memory ("ofi:shm", "ucx:shm"). */
    public boolean isSameHostOnly() {
        return provider.equals(SHARED_MEMORY);
    }

    /*
     * Written out, not the record's own: premain puts transport names in a set, and a record's
     * generated equals and hashCode bootstrap java.lang.runtime.ObjectMethods there (5 ms of start-up
     * on JDK 25, 18 ms on JDK 17).
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof TransportName that && backend == that.backend && provider.equals(that.provider);
    }

    @Override
    public int hashCode() {
        return 31 * backend.hashCode() + provider.hashCode();
    }

    /** "tcp", "ofi:shm", "ucx:tcp": as the config and the handshake write it. */
    @Override
    public String toString() {
        return isNative() ? backend + ":" + provider : backend.toString();
    }
}
