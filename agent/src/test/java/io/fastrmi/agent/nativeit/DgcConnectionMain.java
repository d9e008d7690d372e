package io.fastrmi.agent.nativeit;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;

/**
 * A client that receives a stub and calls it only later: receiving it makes the client's DGC call
 * the stub's endpoint (a lease) before any call of the application's. Usage: {@code server} (prints
 * {@code READY port=P}, runs until its standard input ends) or {@code client PORT CALLS} (looks the
 * stub up, prints {@code STUB}, makes CALLS calls, prints {@code WRONG} for an answer that differs,
 * then {@code CALLS n} and {@code DONE}).
 */
public final class DgcConnectionMain {

    public interface Doubler extends Remote {
        long twice(long value) throws RemoteException;
    }

    private DgcConnectionMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("server")) {
            Doubler doubler = value -> 2 * value;
            RegistryServer.serve("doubler", doubler);
            return;
        }
        Doubler doubler = (Doubler) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[1])).lookup("doubler");
        System.out.println("STUB");
        int calls = Integer.parseInt(args[2]);
        for (int i = 0; i < calls; i++) {
            long answer = doubler.twice(i);
            if (answer != 2L * i) {
                System.out.println("WRONG " + i + " " + answer);
            }
        }
        System.out.println("CALLS " + calls);
        System.out.println("DONE");
    }
}
