package io.fastrmi.agent.doctor;

/** A {@code HOST:PORT} argument; an IPv6 address is written in brackets, {@code [::1]:1099}. */
public record Endpoint(String host, int port) {

    /** Parses {@code text}; the message of the exception says what was expected. */
    public static Endpoint parse(String text) {
        String host;
        String port;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("'" + text + "' is not HOST:PORT (an IPv6 address as [ADDRESS]:PORT)");
            }
            host = text.substring(1, close);
            port = text.substring(close + 2);
        } else {
            int colon = text.lastIndexOf(':');
            if (colon <= 0 || text.indexOf(':') != colon) {
                throw new IllegalArgumentException("'" + text + "' is not HOST:PORT (an IPv6 address as [ADDRESS]:PORT)");
            }
            host = text.substring(0, colon);
            port = text.substring(colon + 1);
        }
        if (host.isBlank()) {
            throw new IllegalArgumentException("'" + text + "' has no host before the port");
        }
        int number;
        try {
            number = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "': port '" + port + "' is not a number");
        }
        if (number < 1 || number > 65535) {
            throw new IllegalArgumentException("'" + text + "': port must be 1 to 65535");
        }
        return new Endpoint(host, number);
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
