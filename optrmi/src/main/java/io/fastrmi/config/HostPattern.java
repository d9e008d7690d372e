package io.fastrmi.config;

import java.net.InetAddress;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Names hosts in the config: {@code local} (this machine), {@code *} (any host), a host name
 * (case-insensitive), a name with {@code *}/{@code ?} wildcards, an IPv4 or IPv6 address, or a CIDR
 * block of either family.
 */
public abstract sealed class HostPattern {

    /** One dot-separated part of a host name, wildcards allowed. */
    private static final String LABEL = "[A-Za-z0-9*?]([A-Za-z0-9*?-]*[A-Za-z0-9*?])?";

    /** Compiled once, when a config first names a host: premain parses the config, and a compile costs the interpreter a few hundred µs. */
    private static final class Names {
        static final Pattern HOST_NAME = Pattern.compile(LABEL + "(\\." + LABEL + ")*");
    }

    private final String text;

    private HostPattern(String text) {
        this.text = text;
    }

    /** Whether matching needs the host's name (not only its address). */
    public boolean needsName() {
        return this instanceof Name || this instanceof Wildcard;
    }

    /** Whether this names the host called {@code name} (may be null) at {@code address} (may be null). */
    public abstract boolean matches(String name, InetAddress address);

    @Override
    public String toString() {
        return text;
    }

    /** Patterns written the same way name the same hosts. */
    @Override
    public boolean equals(Object other) {
        return other instanceof HostPattern pattern && pattern.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** Parses one pattern; the message of the exception says what was expected. */
    public static HostPattern parse(String text) {
        if (text.equals("local")) {
            return new Local();
        }
        if (text.equals("*")) {
            return new Any();
        }
        int slash = text.indexOf('/');
        if (slash >= 0) {
            return cidr(text, slash);
        }
        if (looksLikeAddress(text)) {
            return new Cidr(text, literal(text, text), -1);
        }
        if (!Names.HOST_NAME.matcher(text).matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a host name, address, CIDR block or wildcard");
        }
        return text.contains("*") || text.contains("?") ? new Wildcard(text) : new Name(text);
    }

    private static HostPattern cidr(String text, int slash) {
        byte[] network = literal(text.substring(0, slash), text);
        int bits;
        try {
            bits = Integer.parseInt(text.substring(slash + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "': the prefix length after '/' is not a number");
        }
        int max = network.length * 8;
        if (bits < 0 || bits > max) {
            throw new IllegalArgumentException("'" + text + "': prefix length must be 0 to " + max);
        }
        return new Cidr(text, network, bits);
    }

    private static boolean looksLikeAddress(String text) {
        if (text.contains(":")) {
            return true;
        }
        for (int i = 0; i < text.length(); i++) { // [0-9.]+
            char c = text.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return !text.isEmpty();
    }

    /** An IP literal's bytes, never a DNS lookup. */
    private static byte[] literal(String address, String whole) {
        byte[] bytes = IpLiteral.parse(address);
        if (bytes == null) {
            throw new IllegalArgumentException("'" + whole + "': '" + address + "' is not an IPv4 or IPv6 address");
        }
        return bytes;
    }

    static final class Local extends HostPattern {
        Local() {
            super("local");
        }

        @Override
        public boolean matches(String name, InetAddress address) {
            return address != null && LocalAddresses.isLocal(address);
        }
    }

    static final class Any extends HostPattern {
        Any() {
            super("*");
        }

        @Override
        public boolean matches(String name, InetAddress address) {
            return true;
        }
    }

    static final class Name extends HostPattern {
        Name(String text) {
            super(text);
        }

        @Override
        public boolean matches(String name, InetAddress address) {
            return name != null && name.equalsIgnoreCase(toString());
        }
    }

    static final class Wildcard extends HostPattern {
        private final Pattern regex;

        Wildcard(String text) {
            super(text);
            this.regex = Pattern.compile(text.toLowerCase(Locale.ROOT).replace(".", "\\.").replace("*", "[^.]*")
                    .replace("?", "[^.]"));
        }

        @Override
        public boolean matches(String name, InetAddress address) {
            return name != null && regex.matcher(name.toLowerCase(Locale.ROOT)).matches();
        }
    }

    static final class Cidr extends HostPattern {
        private final byte[] network;
        private final int bits;

        /** {@code bits} -1: exactly this address. */
        Cidr(String text, byte[] network, int bits) {
            super(text);
            this.network = network;
            this.bits = bits < 0 ? this.network.length * 8 : bits;
        }

        @Override
        public boolean matches(String name, InetAddress address) {
            if (address == null) {
                return false;
            }
            byte[] candidate = address.getAddress();
            if (candidate.length != network.length) {
                return false;
            }
            int whole = bits / 8;
            for (int i = 0; i < whole; i++) {
                if (candidate[i] != network[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = 0xff << (8 - rest) & 0xff;
            return (candidate[whole] & mask) == (network[whole] & mask);
        }
    }
}
