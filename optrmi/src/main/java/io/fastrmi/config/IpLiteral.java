package io.fastrmi.config;

/**
 * IP address literals of a config's host patterns, parsed to bytes as {@code InetAddress} parses
 * them: IPv4 as four decimal parts; IPv6 as RFC 4291 writes it (hex groups, one {@code ::}, a
 * dotted IPv4 tail), an IPv4-mapped one becoming its 4 bytes. Not through {@code InetAddress}: its
 * class initialization on JDK 25 reads the security properties, 3 ms of every agent JVM's start
 * whose config names an address (premain reads the config).
 */
final class IpLiteral {

    private IpLiteral() {
    }

    /** The address's bytes (4 or 16), or null when {@code text} is no IPv4 or IPv6 literal. */
    static byte[] parse(String text) {
        return text.indexOf(':') >= 0 ? ipv6(text) : ipv4(text, 0, text.length(), 3);
    }

    /**
     * {@code text[from, to)} as a dotted quad, each part up to 255 in at most {@code digitsPerPart}
     * digits; null otherwise. (InetAddress takes an IPv6 address's IPv4 tail with leading zeros.)
     */
    private static byte[] ipv4(String text, int from, int to, int digitsPerPart) {
        byte[] bytes = new byte[4];
        int part = 0;
        int value = 0;
        int digits = 0;
        for (int i = from; i <= to; i++) {
            char c = i < to ? text.charAt(i) : '.';
            if (c >= '0' && c <= '9') {
                value = value * 10 + (c - '0');
                if (++digits > digitsPerPart || value > 255) {
                    return null;
                }
            } else if (c == '.' && digits > 0 && part < 4) {
                bytes[part++] = (byte) value;
                value = 0;
                digits = 0;
            } else {
                return null;
            }
        }
        return part == 4 ? bytes : null;
    }

    private static byte[] ipv6(String text) {
        byte[] bytes = new byte[16];
        int length = text.length();
        int gap = -1; // where "::" stands, in bytes
        int at = 0; // bytes filled
        int i = 0;
        if (text.startsWith("::")) {
            gap = 0;
            i = 2;
            if (i == length) {
                return bytes;
            }
        } else if (text.startsWith(":")) {
            return null;
        }
        while (i < length) {
            int end = i;
            while (end < length && text.charAt(end) != ':') {
                end++;
            }
            if (end == i) {
                return null; // ":::" or a lone ':' at the end
            }
            if (end == length && text.indexOf('.', i) >= 0) {
                byte[] v4 = end - i <= 15 ? ipv4(text, i, end, 15) : null;
                if (v4 == null || at + 4 > 16) {
                    return null;
                }
                System.arraycopy(v4, 0, bytes, at, 4);
                at += 4;
                i = end;
                break;
            }
            if (at + 2 > 16) {
                return null;
            }
            int group = 0;
            for (int k = i; k < end; k++) {
                int digit = Character.digit(text.charAt(k), 16);
                group = group << 4 | digit;
                if (digit < 0 || group > 0xffff) { // leading zeros beyond four digits pass, as in InetAddress
                    return null;
                }
            }
            bytes[at++] = (byte) (group >> 8);
            bytes[at++] = (byte) group;
            if (end == length) {
                i = end;
                break;
            }
            if (end + 1 < length && text.charAt(end + 1) == ':') {
                if (gap >= 0) {
                    return null; // a second "::"
                }
                gap = at;
                i = end + 2;
            } else if (end + 1 == length) {
                return null; // a trailing single ':'
            } else {
                i = end + 1;
            }
        }
        if (gap < 0) {
            if (at != 16) {
                return null;
            }
        } else {
            if (at == 16) {
                return null; // "::" must stand for at least one group
            }
            int tail = at - gap;
            System.arraycopy(bytes, gap, bytes, 16 - tail, tail);
            java.util.Arrays.fill(bytes, gap, 16 - tail, (byte) 0);
        }
        return ipv4Mapped(bytes) ? java.util.Arrays.copyOfRange(bytes, 12, 16) : bytes;
    }

    /** {@code ::ffff:a.b.c.d}, which InetAddress answers as the IPv4 address a.b.c.d. */
    private static boolean ipv4Mapped(byte[] bytes) {
        for (int i = 0; i < 10; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff;
    }
}
