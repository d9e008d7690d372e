package io.fastrmi.netpipe.bench.kernels;

/** The client's side of {@code pingpong}: the object back as the server sent it. */
public final class EchoingPong implements Pong {

    @Override
    public Object pong(Object obj) {
        return obj;
    }
}
