package io.fastrmi.agent.nativeit;

import io.fastrmi.sample.SampleServer;
import io.fastrmi.sample.SampleService;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.rmi.registry.LocateRegistry;

/**
 * Looks up the sample server and makes a first call (its connection is negotiated then), waits
 * {@link #SETTLE_MILLIS} (the agent loads the native library on a thread of its own meanwhile),
 * prints {@code READY}; on "go" from stdin calls {@code sleep(millis)} and prints {@code DONE};
 * exits on the next line. Usage: {@code TimedCallClientMain HOST PORT MILLIS}.
 */
public final class TimedCallClientMain {

    static final long SETTLE_MILLIS = 3000;

    private TimedCallClientMain() {
    }

    public static void main(String[] args) throws Exception {
        SampleService service = (SampleService) LocateRegistry.getRegistry(args[0], Integer.parseInt(args[1]))
                .lookup(SampleServer.NAME);
        service.sleep(1);
        Thread.sleep(SETTLE_MILLIS);
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
        System.out.println("READY");
        stdin.readLine();
        service.sleep(Integer.parseInt(args[2]));
        System.out.println("DONE");
        stdin.readLine();
        System.exit(0);
    }
}
