package io.fastrmi.sample;

import java.rmi.RemoteException;
import java.util.ArrayList;
import java.util.List;

/** The server side of {@link SampleService}. Every answer is a pure function of the arguments. */
public final class SampleServiceImpl implements SampleService {

    @Override
    public void ping() {
    }

    @Override
    public int add(int a, int b) {
        return a + b;
    }

    @Override
    public long negate(long value) {
        return -value;
    }

    @Override
    public double scale(double value, double factor) {
        return value * factor;
    }

    @Override
    public boolean not(boolean value) {
        return !value;
    }

    @Override
    public String greet(String name) {
        return "hello, " + name;
    }

    @Override
    public Payload transform(Payload payload) {
        int[] values = payload.values();
        for (int i = 0; i < values.length; i++) {
            values[i] *= 2;
        }
        List<String> tags = new ArrayList<>(payload.tags());
        tags.add("seen");
        Payload child = payload.child() == null ? null : transform(payload.child());
        return new Payload(payload.name().toUpperCase(java.util.Locale.ROOT), values, tags, child);
    }

    @Override
    public double[] echo(double[] values) {
        return values;
    }

    @Override
    public int[] reverse(int[] values) {
        int[] reversed = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            reversed[i] = values[values.length - 1 - i];
        }
        return reversed;
    }

    @Override
    public int visit(Callback callback, int times) throws RemoteException {
        int sum = 0;
        for (int i = 1; i <= times; i++) {
            sum += callback.call(i);
        }
        return sum;
    }

    @Override
    public void sleep(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void fail(String message) throws SampleException {
        throw new SampleException(message);
    }
}
