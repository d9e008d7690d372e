package io.fastrmi.fastsockets;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;

/**
 * A socket of RMI's that FastRMI made. On the client it is returned after the handshake; on the
 * server, the handshake is detected and answered on the first read of its input stream (never in
 * {@code accept()}, so a silent client cannot stall the accept loop), and a client that offers
 * nothing sees plain RMI.
 */
public class FastSocket extends Socket {

    private final boolean serverSide;
    private volatile Handshake.Answer answer;
    private InputStream input;

    /** An unconnected socket; {@code serverSide}: for {@code ServerSocket.implAccept}. */
    FastSocket(boolean serverSide) {
        this.serverSide = serverSide;
    }

    /** Whether this connection was negotiated fast: both ends run FastRMI and may use its optimizations. */
    public boolean negotiatedFast() {
        Handshake.Answer a = answer;
        return a != null && a.fast();
    }

    /** The handshake's answer, or null for a connection without one. */
    public Handshake.Answer answer() {
        return answer;
    }

    void negotiated(Handshake.Answer answer) {
        this.answer = answer;
    }

    @Override
    public synchronized InputStream getInputStream() throws IOException {
        if (input == null) {
            InputStream raw = super.getInputStream();
            input = serverSide ? new ServerHandshakeInputStream(this, raw) : raw;
        }
        return input;
    }

    /** The stream without handshake detection, for writing the answer and for the detector itself. */
    InputStream rawInputStream() throws IOException {
        return super.getInputStream();
    }
}
