package io.fastrmi.netpipe.dirmi;

import io.fastrmi.netpipe.np.Calls;
import java.io.IOException;
import java.net.ServerSocket;
import org.cojen.dirmi.Environment;
import org.cojen.dirmi.Session;

/**
 * Cojen Dirmi as a reference peer of netpipe-java: its server (the bench's calls exported as
 * {@value DirmiBench#NAME}) and its client side of the kernels' {@link Calls}.
 */
public final class DirmiPeer {

    private DirmiPeer() {
    }

    /** Serves on {@code listener} from now on (Dirmi's own threads); returns the environment, to keep. */
    public static Environment serve(ServerSocket listener) throws IOException {
        Environment env = Environment.create();
        env.customSerializers(DirmiSerializers.all());
        env.export(DirmiBench.NAME, new DirmiBenchImpl());
        env.acceptAll(listener);
        return env;
    }

    /** Connects to a Dirmi server; closing ends the session and the environment. */
    public static DirmiCalls connect(String host, int port) throws IOException {
        Environment env = Environment.create();
        env.customSerializers(DirmiSerializers.all());
        Session<DirmiBench> session = env.connect(DirmiBench.class, DirmiBench.NAME, host, port);
        return new DirmiCalls(env, session.root());
    }

    /** The kernels' calls on a Dirmi session. */
    public static final class DirmiCalls implements Calls, AutoCloseable {
        private final Environment env;
        private final DirmiBench bench;
        private final DirmiPong pong = obj -> obj;

        DirmiCalls(Environment env, DirmiBench bench) {
            this.env = env;
            this.bench = bench;
        }

        @Override
        public void ping() throws IOException {
            bench.ping();
        }

        @Override
        public void ping(int a, int b) throws IOException {
            bench.ping(a, b);
        }

        @Override
        public void ping(int a, int b, float c, float d) throws IOException {
            bench.ping(a, b, c, d);
        }

        @Override
        public Object ping(Object obj) throws IOException {
            return bench.ping(obj);
        }

        @Override
        public Object pingpong(Object obj) throws IOException {
            return bench.pingpong(obj, pong);
        }

        @Override
        public byte[] echo(byte[] values) throws IOException {
            return bench.echo(values);
        }

        @Override
        public int[] echo(int[] values) throws IOException {
            return bench.echo(values);
        }

        @Override
        public double[] echo(double[] values) throws IOException {
            return bench.echo(values);
        }

        @Override
        public void take(byte[] values) throws IOException {
            bench.take(values);
        }

        @Override
        public void take(int[] values) throws IOException {
            bench.take(values);
        }

        @Override
        public void take(double[] values) throws IOException {
            bench.take(values);
        }

        @Override
        public void close() {
            env.close();
        }
    }
}
