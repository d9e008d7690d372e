package io.fastrmi.netpipe;

import io.fastrmi.netpipe.np.Calls;

/** A peer's calls and how to end them. */
record AutoCloseableCalls(Calls calls, AutoCloseable closer) implements AutoCloseable {
    @Override
    public void close() throws Exception {
        closer.close();
    }
}
