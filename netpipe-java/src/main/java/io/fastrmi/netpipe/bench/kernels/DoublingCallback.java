package io.fastrmi.netpipe.bench.kernels;

/** The client's callback: doubles what the server sends, so the answer shows it really ran. */
public final class DoublingCallback implements Callback {

    static int answer(int value) {
        return value * 2;
    }

    @Override
    public int call(int value) {
        return answer(value);
    }
}
