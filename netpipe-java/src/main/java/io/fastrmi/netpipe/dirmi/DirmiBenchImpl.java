package io.fastrmi.netpipe.dirmi;

import org.cojen.dirmi.RemoteException;

/** The server's side: the same as little work as the RMI service does. */
final class DirmiBenchImpl implements DirmiBench {

    @Override
    public void ping() {
    }

    @Override
    public void ping(int a, int b) {
    }

    @Override
    public void ping(int a, int b, float c, float d) {
    }

    @Override
    public Object ping(Object obj) {
        return obj;
    }

    @Override
    public Object pingpong(Object obj, DirmiPong pong) throws RemoteException {
        return pong.pong(obj);
    }

    @Override
    public byte[] echo(byte[] values) {
        return values;
    }

    @Override
    public int[] echo(int[] values) {
        return values;
    }

    @Override
    public double[] echo(double[] values) {
        return values;
    }

    @Override
    public void take(byte[] values) {
    }

    @Override
    public void take(int[] values) {
    }

    @Override
    public void take(double[] values) {
    }
}
