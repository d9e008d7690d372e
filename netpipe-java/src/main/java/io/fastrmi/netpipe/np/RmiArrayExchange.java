package io.fastrmi.netpipe.np;

import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;

/**
 * netpipe-java's rmi mode: arrays of bytes, ints or doubles echoed by the server (a round trip moves
 * the array both ways) or sent one way ({@code take}: only the call's completion comes back), over
 * RMI or a reference peer's {@link Calls}.
 */
public final class RmiArrayExchange implements Exchange {

    /** The element types the rmi mode sends. */
    public enum Type {
        BYTE(Byte.BYTES), INT(Integer.BYTES), DOUBLE(Double.BYTES);

        final int bytes;

        Type(int bytes) {
            this.bytes = bytes;
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Calls service;
    private final Type type;
    private final boolean oneWay;
    private int elements = -1;
    private Object message;

    public RmiArrayExchange(Calls service, Type type, boolean oneWay) {
        this.service = service;
        this.type = type;
        this.oneWay = oneWay;
    }

    @Override
    public String describe() {
        return type + "[] " + (oneWay ? "one-way" : "echo");
    }

    @Override
    public boolean oneWay() {
        return oneWay;
    }

    @Override
    public int bytesFor(int size) {
        return elementsFor(size) * type.bytes;
    }

    private int elementsFor(int size) {
        return (size + type.bytes - 1) / type.bytes;
    }

    @Override
    public long run(int size, int repeats) throws Exception {
        int count = elementsFor(size);
        if (count != elements) {
            elements = count;
            message = switch (type) {
                case BYTE -> Messages.bytes(count);
                case INT -> Messages.ints(count);
                case DOUBLE -> Messages.doubles(count);
            };
        }
        Object last = null;
        long start = System.nanoTime();
        for (int i = 0; i < repeats; i++) {
            last = call();
        }
        long elapsed = System.nanoTime() - start;
        if (!oneWay && !Arrays.deepEquals(new Object[] {message}, new Object[] {last})) {
            throw new IOException(describe() + ": " + type + "[" + count + "] came back changed");
        }
        return elapsed;
    }

    private Object call() throws Exception {
        switch (type) {
            case BYTE:
                if (oneWay) {
                    service.take((byte[]) message);
                    return null;
                }
                return service.echo((byte[]) message);
            case INT:
                if (oneWay) {
                    service.take((int[]) message);
                    return null;
                }
                return service.echo((int[]) message);
            default:
                if (oneWay) {
                    service.take((double[]) message);
                    return null;
                }
                return service.echo((double[]) message);
        }
    }

    @Override
    public void close() {
    }
}
