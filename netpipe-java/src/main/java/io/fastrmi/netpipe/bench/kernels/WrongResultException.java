package io.fastrmi.netpipe.bench.kernels;

/** A call returned something other than what the kernel expects: the benchmark must not go on quietly. */
public final class WrongResultException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    WrongResultException(String message) {
        super(message);
    }

    /** Throws unless {@code ok}; {@code what} is built only then. */
    public static void expect(boolean ok, java.util.function.Supplier<String> what) {
        if (!ok) {
            throw new WrongResultException(what.get());
        }
    }
}
