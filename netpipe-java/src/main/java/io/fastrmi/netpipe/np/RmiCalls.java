package io.fastrmi.netpipe.np;

import io.fastrmi.netpipe.bench.kernels.BenchService;
import io.fastrmi.netpipe.bench.kernels.EchoingPong;
import io.fastrmi.netpipe.bench.kernels.Pong;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;

/** The kernels' calls over Java RMI, on the bench's service; closing unexports the client's {@link Pong}. */
public final class RmiCalls implements Calls, AutoCloseable {

    private final BenchService service;
    private final EchoingPong pong = new EchoingPong();
    private final Pong pongStub;

    private RmiCalls(BenchService service) throws RemoteException {
        this.service = service;
        this.pongStub = (Pong) UnicastRemoteObject.exportObject(pong, 0);
    }

    /** Looks the service up in the registry at {@code host:port}. */
    public static RmiCalls connect(String host, int port) throws Exception {
        return new RmiCalls((BenchService) LocateRegistry.getRegistry(host, port).lookup(BenchService.NAME));
    }

    @Override
    public void ping() throws RemoteException {
        service.ping();
    }

    @Override
    public void ping(int a, int b) throws RemoteException {
        service.ping(a, b);
    }

    @Override
    public void ping(int a, int b, float c, float d) throws RemoteException {
        service.ping(a, b, c, d);
    }

    @Override
    public Object ping(Object obj) throws RemoteException {
        return service.ping(obj);
    }

    @Override
    public Object pingpong(Object obj) throws RemoteException {
        return service.pingpong(obj, pongStub);
    }

    @Override
    public byte[] echo(byte[] values) throws RemoteException {
        return service.echo(values);
    }

    @Override
    public int[] echo(int[] values) throws RemoteException {
        return service.echo(values);
    }

    @Override
    public double[] echo(double[] values) throws RemoteException {
        return service.echo(values);
    }

    @Override
    public void take(byte[] values) throws RemoteException {
        service.take(values);
    }

    @Override
    public void take(int[] values) throws RemoteException {
        service.take(values);
    }

    @Override
    public void take(double[] values) throws RemoteException {
        service.take(values);
    }

    @Override
    public void close() throws RemoteException {
        UnicastRemoteObject.unexportObject(pong, true);
    }
}
