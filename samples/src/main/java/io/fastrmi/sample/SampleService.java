package io.fastrmi.sample;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The sample remote interface: void, primitives, objects, arrays, a remote callback and an application exception. */
public interface SampleService extends Remote {

    void ping() throws RemoteException;

    int add(int a, int b) throws RemoteException;

    long negate(long value) throws RemoteException;

    double scale(double value, double factor) throws RemoteException;

    boolean not(boolean value) throws RemoteException;

    String greet(String name) throws RemoteException;

    Payload transform(Payload payload) throws RemoteException;

    double[] echo(double[] values) throws RemoteException;

    int[] reverse(int[] values) throws RemoteException;

    /** Calls {@code callback} {@code times} times, with 1, 2, ..., and returns the sum of its answers. */
    int visit(Callback callback, int times) throws RemoteException;

    /** Returns after {@code millis} milliseconds: a call that is still running when its peer dies. */
    void sleep(int millis) throws RemoteException;

    /** Always throws {@link SampleException} with {@code message}. */
    void fail(String message) throws SampleException, RemoteException;
}
