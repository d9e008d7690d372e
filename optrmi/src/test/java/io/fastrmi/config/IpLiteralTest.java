package io.fastrmi.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The config's own IP literal parser answers as InetAddress does, on every literal a host pattern may hold. */
class IpLiteralTest {

    private static final String ALPHABET = "0123456789abcdefABCDEF:.";

    @ParameterizedTest
    @CsvSource({"10.1.0.0, 0a010000", "255.255.255.255, ffffffff", "::, 00000000000000000000000000000000",
        "::1, 00000000000000000000000000000001", "fd00:1::, fd000001000000000000000000000000",
        "1:2:3:4:5:6:7::, 00010002000300040005000600070000", "::ffff:1.2.3.4, 01020304",
        "::1.2.3.4, 00000000000000000000000001020304", "1:2:3:4:5:6:1.2.3.4, 00010002000300040005000601020304"})
    void parsesAsWritten(String text, String hex) {
        assertArrayEquals(HexFormat.of().parseHex(hex), IpLiteral.parse(text), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.2.3", "1.2.3.256", "10000::", "1..2.3", "1.2.3.4.", "1:2:3:4:5:6:7:8:9", "1::2::3", ":1::",
        "1:2:3:4:5:6:7:8::", "::g", "1.2.3.4::", "1:2:3:4:5:6:7:1.2.3.4", ":::", "1:", ""})
    void refusesWhatIsNoLiteral(String text) {
        assertNull(IpLiteral.parse(text), text);
    }

    /** Random, written-out and mutated literals, each against InetAddress's answer for it. */
    @Test
    void agreesWithInetAddress() throws Exception {
        Random random = new Random(20261126);
        List<String> candidates = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            String written = written(random);
            candidates.add(written);
            candidates.add(mutated(written, random));
            StringBuilder noise = new StringBuilder();
            for (int n = random.nextInt(1, 20); n > 0; n--) {
                noise.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
            candidates.add(noise.toString());
        }
        for (String text : candidates) {
            assertArrayEquals(inetAddress(text), IpLiteral.parse(text), text);
        }
    }

    /**
     * InetAddress's bytes for a text a host pattern hands to the parser (HostPattern's shapes: an
     * IPv4 dotted quad, or hex digits, colons and dots with a colon), or null. Texts that InetAddress
     * would send to DNS (not starting with a hex digit or ':') are no literal.
     */
    private static byte[] inetAddress(String text) {
        boolean v4 = text.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = text.contains(":") && text.matches("[0-9A-Fa-f:.]+");
        if (!v4 && !v6 || Character.digit(text.charAt(0), 16) < 0 && text.charAt(0) != ':') {
            return null;
        }
        // InetAddress sends a dotted quad with a part above 255 to DNS: no literal, and a lookup per text
        if (v4 && Arrays.stream(text.split("\\.")).anyMatch(part -> Integer.parseInt(part) > 255)) {
            return null;
        }
        try {
            return InetAddress.getByName(text).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** An address written as people write them: IPv4, or IPv6 with or without "::", a dotted tail, leading zeros. */
    private static String written(Random random) {
        if (random.nextInt(4) == 0) {
            return random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256);
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = random.nextInt(3) == 0 ? 0 : random.nextInt(random.nextBoolean() ? 16 : 65536);
        }
        boolean dotted = random.nextInt(5) == 0;
        if (random.nextInt(6) == 0) { // IPv4-mapped
            java.util.Arrays.fill(groups, 0, 5, 0);
            groups[5] = 0xffff;
        }
        int count = dotted ? 6 : 8;
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String hex = Integer.toHexString(groups[i]);
            parts.add(random.nextInt(8) == 0 ? "0".repeat(4 - hex.length()) + hex.toUpperCase() : hex);
        }
        String text;
        int from = random.nextInt(count + 1);
        int to = from + random.nextInt(count - from + 1);
        if (random.nextBoolean() && to > from) {
            text = String.join(":", parts.subList(0, from)) + "::" + String.join(":", parts.subList(to, count));
        } else {
            text = String.join(":", parts);
        }
        if (dotted) {
            text += (text.endsWith(":") ? "" : ":") + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256)
                    + "." + random.nextInt(256);
        }
        return text;
    }

    private static String mutated(String text, Random random) {
        StringBuilder mutated = new StringBuilder(text);
        for (int n = random.nextInt(1, 3); n > 0 && mutated.length() > 0; n--) {
            int at = random.nextInt(mutated.length());
            char c = ALPHABET.charAt(random.nextInt(ALPHABET.length()));
            switch (random.nextInt(3)) {
                case 0 -> mutated.insert(at, c);
                case 1 -> mutated.deleteCharAt(at);
                default -> mutated.setCharAt(at, c);
            }
        }
        return mutated.length() == 0 ? "0" : mutated.toString();
    }
}
