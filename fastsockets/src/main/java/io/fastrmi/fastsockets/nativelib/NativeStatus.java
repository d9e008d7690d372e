package io.fastrmi.fastsockets.nativelib;

/**
 * The return codes of libfastrmi's {@code enum fastrmi_status} ({@code native/include/fastrmi.h}),
 * so that no message shows a bare number. {@code NativeStatusTest} checks this list against the
 * header, and {@code NativeStatusIT} against the library's {@code fastrmi_strstatus}.
 */
public enum NativeStatus {
    OK(0),
    ERR_TIMEOUT(-1),
    ERR_ABORTED(-2),
    ERR_CLOSED(-3),
    ERR_INVALID(-4),
    ERR_NOMEM(-5),
    ERR_PROVIDER(-6),
    ERR_PROTOCOL(-7),
    ERR_NOT_FOUND(-8),
    ERR_RESET(-9),
    ERR_FULL(-10);

    /** What {@code fastrmi_strstatus} returns for a code that is not a status. */
    public static final String UNKNOWN = "FASTRMI_UNKNOWN_STATUS";

    private final int code;

    NativeStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The enumerator's name in C, "FASTRMI_ERR_PROVIDER". */
    public String cName() {
        return "FASTRMI_" + name();
    }

    /** Whether a native call returned this status. */
    public boolean is(long returned) {
        return returned == code;
    }

    /** "FASTRMI_ERR_PROVIDER (-6)", or "FASTRMI_UNKNOWN_STATUS (-42)" for a code that is none. */
    public static String describe(long returned) {
        for (NativeStatus status : values()) {
            if (status.is(returned)) {
                return status.cName() + " (" + returned + ")";
            }
        }
        return UNKNOWN + " (" + returned + ")";
    }

    /**
     * What {@code fastrmi_process_holds_socket} returned for process {@code pid}: 1, it holds the
     * socket; 0 or {@code ERR_NOT_FOUND} (its open files cannot be read: gone, or not ours), it
     * does not; any other code is a failure.
     */
    public static boolean holdsSocket(long pid, int returned, String message) throws java.io.IOException {
        if (returned == 1 || returned == 0 || ERR_NOT_FOUND.is(returned)) {
            return returned == 1;
        }
        throw new java.io.IOException("cannot read the open files of process " + pid + ": "
                + failure("fastrmi_process_holds_socket", returned, message));
    }

    /**
     * What {@code fastrmi_socket_readable} returned for socket {@code fd}: 1, something to read; 0,
     * nothing; any other code is a failure (FASTRMI_ERR_INVALID: the descriptor is not open).
     */
    public static boolean socketReadable(int fd, int returned) throws java.io.IOException {
        if (returned == 1 || returned == 0) {
            return returned == 1;
        }
        throw new java.io.IOException(failure("fastrmi_socket_readable", returned, "fd " + fd));
    }

    /** A native call's failure in words: "fastrmi_stream_open failed: FASTRMI_ERR_NOMEM (-5): out of memory". */
    public static String failure(String call, long returned, String message) {
        String text = call + " failed: " + describe(returned);
        return message == null || message.isEmpty() ? text : text + ": " + message;
    }

    /**
     * A stream call's failure as java.net would throw it where a socket has the same case (timeout,
     * closed, reset, output shut down); else the call and its status by name.
     */
    public static java.io.IOException streamFailure(String what, String call, long code, Object transport,
            String message) {
        if (ERR_TIMEOUT.is(code)) {
            return new java.net.SocketTimeoutException(what + " timed out");
        }
        if (ERR_ABORTED.is(code)) {
            return new java.net.SocketException("Socket closed");
        }
        if (ERR_RESET.is(code)) {
            // java.net's words for a write to a peer that closed with data unread
            return new java.net.SocketException("Connection reset by peer (" + transport + ": " + message + ")");
        }
        if (ERR_CLOSED.is(code)) {
            return new java.net.SocketException("Socket output is shut down");
        }
        return new java.io.IOException(what + " on a " + transport + " stream: " + failure(call, code, message));
    }
}
