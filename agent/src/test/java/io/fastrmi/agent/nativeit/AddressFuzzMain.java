package io.fastrmi.agent.nativeit;

import io.fastrmi.config.TransportName;
import io.fastrmi.fastsockets.handshake.Handshake;
import io.fastrmi.optrmi.JvmFingerprint;
import io.fastrmi.testkit.NativeAddressBytes;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Fuzzes the native transport addresses the handshake carries, against real agent JVMs. Every
 * record is well formed (fingerprint, host, lengths), so it gets past the record parser to the
 * address checks and, where those pass, to the native library; only the addresses are random or
 * mutated, from seeds as real as can be had: this user's real doorbell and UCX worker files in
 * {@code /dev/shm/fastrmi-UID}, socket addresses of this host, the peer's own addresses.
 * <ul>
 * <li>{@code offers HOST PORT COUNT SEED}: sends COUNT offers, one connection each, to an agent server
 * (its config listing every native transport), each offering one transport with a fuzzed address,
 * (then tcp), and reads how it ends: an answer that takes the transport ({@code accepted}) or tcp
 * instead ({@code refused}), or the connection closed. Prints
 * {@code OFFERS n accepted=.. closed=.. hung=.. refused=..} ({@code hung}: no end within 10 s).
 * <li>{@code answers COUNT SEED} (run under the agent): a fake server in this JVM answers every offer
 * fast, on one of the offered transports, with a fuzzed address; this JVM's RMI calls to it must each
 * fail with a RemoteException. Prints {@code ANSWERS n remote-exceptions=.. other=..}.
 * </ul>
 */
public final class AddressFuzzMain {

    private static final List<String> TRANSPORTS = List.of("ofi:shm", "ucx:shm", "ofi:tcp;ofi_rxm", "ucx:tcp");
    private static final int READ_LIMIT_MILLIS = 10_000;

    private AddressFuzzMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("offers")) {
            offers(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[3]), Long.parseLong(args[4]));
        } else {
            answers(Integer.parseInt(args[1]), Long.parseLong(args[2]));
        }
        System.exit(0);
    }

    // ---- offers to a server --------------------------------------------------------------------

    private static void offers(String host, int port, int count, long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        String hostIdentity = hostIdentityOf(host, port);
        Map<String, Integer> outcomes = new TreeMap<>(Map.of("accepted", 0, "refused", 0, "closed", 0, "hung", 0));
        for (int i = 0; i < count; i++) {
            String transport = TRANSPORTS.get(random.nextInt(TRANSPORTS.size()));
            String address = fuzzedEndpoint(hostIdentity, seeds(transport, random), random);
            outcomes.merge(offerOnce(host, port, transport, address), 1, Integer::sum);
        }
        System.out.println("OFFERS " + count + " " + outcomes.toString().replaceAll("[{},]", ""));
    }

    /**
     * The server's host identity (what a shared-memory address must name), from the address it
     * answers with: a valid UCX listener address (port 1, where nothing listens) gets a fast answer.
     */
    private static String hostIdentityOf(String host, int port) throws IOException {
        Handshake.Answer answer = exchange(host, port, new Handshake.Transport(TransportName.parse("ucx:tcp"), "probe/53000104/1"));
        if (answer == null || !answer.fast() || !answer.transport().address().contains("/")) {
            throw new IOException("the server did not answer a valid ucx:tcp offer fast: " + answer);
        }
        String address = answer.transport().address();
        return address.substring(0, address.indexOf('/'));
    }

    private static String offerOnce(String host, int port, String transport, String address) {
        try {
            Handshake.Answer answer = exchange(host, port, new Handshake.Transport(TransportName.parse(transport), address));
            if (answer == null) {
                return "closed";
            }
            // The fuzzed transport taken, or refused (tcp, offered after it, chosen instead)
            return answer.transport().name().toString().equals(transport) ? "accepted" : "refused";
        } catch (SocketTimeoutException e) {
            return "hung";
        } catch (IOException e) {
            return "closed";
        }
    }

    /** One connection: an offer of {@code offered}, then the answer, or null when the server closed. */
    private static Handshake.Answer exchange(String host, int port, Handshake.Transport offered) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), READ_LIMIT_MILLIS);
            socket.setSoTimeout(READ_LIMIT_MILLIS);
            Handshake.writeOffer(socket.getOutputStream(),
                    new Handshake.Offer(JvmFingerprint.current(), Set.of(), List.of(offered, new Handshake.Transport(TransportName.TCP, ""))));
            InputStream in = socket.getInputStream();
            int first = in.read();
            if (first != 'F') {
                return null;
            }
            try {
                return Handshake.readAnswerBody(in);
            } catch (IOException e) {
                return null;
            }
        }
    }

    // ---- answers to this JVM's RMI calls -------------------------------------------------------

    private static void answers(int count, long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        Map<String, Integer> outcomes = new TreeMap<>(Map.of("remote-exceptions", 0, "other", 0));
        try (ServerSocket fake = new ServerSocket(0)) {
            Thread server = new Thread(() -> answerAll(fake, random.split()), "fake FastRMI server");
            server.setDaemon(true);
            server.start();
            for (int i = 0; i < count; i++) {
                try {
                    LocateRegistry.getRegistry("127.0.0.1", fake.getLocalPort()).list();
                    outcomes.merge("other", 1, Integer::sum);
                    System.out.println("RETURNED: a call to the fake server returned");
                } catch (RemoteException e) {
                    outcomes.merge("remote-exceptions", 1, Integer::sum);
                } catch (RuntimeException e) {
                    outcomes.merge("other", 1, Integer::sum);
                    e.printStackTrace(System.out);
                }
            }
        }
        System.out.println("ANSWERS " + count + " " + outcomes.toString().replaceAll("[{},]", ""));
    }

    /** Answers each offer fast, with a fuzzed address of one of the client's transports, then closes. */
    private static void answerAll(ServerSocket fake, SplittableRandom random) {
        while (true) {
            try (Socket client = fake.accept()) {
                client.setSoTimeout(READ_LIMIT_MILLIS);
                Handshake.Offer offer = Handshake.readOffer(client.getInputStream());
                List<Handshake.Transport> natives = offer.transports().stream().filter(t -> t.name().isNative()).toList();
                if (natives.isEmpty()) {
                    continue;
                }
                Handshake.Transport base = natives.get(random.nextInt(natives.size()));
                String host = base.address().substring(0, base.address().indexOf('/'));
                List<byte[]> seeds = new ArrayList<>(seeds(base.name().toString(), random));
                seeds.add(HexFormat.of().parseHex(base.address().split("/")[1])); // the client's own
                Handshake.Transport answered = new Handshake.Transport(base.name(), fuzzedEndpoint(host, seeds, random));
                Handshake.writeAnswer(client.getOutputStream(), new Handshake.Answer(true, "", offer.fingerprint(),
                        Set.of(), answered));
            } catch (IOException e) {
                if (fake.isClosed()) {
                    return;
                }
            } catch (RuntimeException e) {
                // A bug of this fake server's, not of the client: said, and the next client served
                System.out.println("FAKE SERVER: " + e);
            }
        }
    }

    // ---- addresses -----------------------------------------------------------------------------

    /** "HOST/HEX/STREAM" with a fuzzed native address, and now and then a fuzzed host or stream id. */
    private static String fuzzedEndpoint(String host, List<byte[]> seeds, SplittableRandom random) {
        byte[] seed = seeds.get(random.nextInt(seeds.size()));
        byte[] address = random.nextInt(8) == 0 ? NativeAddressBytes.random(random) : NativeAddressBytes.mutate(seed, random);
        String streamId = Long.toString(random.nextLong() >>> 8);
        return switch (random.nextInt(16)) {
            case 0 -> "otherhost/" + HexFormat.of().formatHex(address) + "/" + streamId;
            case 1 -> host + "/" + HexFormat.of().formatHex(address) + "/x" + streamId;
            case 2 -> host + "/" + HexFormat.of().formatHex(address) + "g/" + streamId;
            case 3 -> host + "/" + HexFormat.of().formatHex(address);
            default -> host + "/" + HexFormat.of().formatHex(address) + "/" + streamId;
        };
    }

    /**
     * Real-looking addresses of a transport: this user's doorbell and worker files (libfabric shm,
     * UCX shm), socket addresses of this host (libfabric tcp, UCX listeners).
     */
    private static List<byte[]> seeds(String transport, SplittableRandom random) {
        List<byte[]> seeds = new ArrayList<>();
        switch (transport) {
            case "ofi:shm" -> {
                for (long[] bell : userFiles("bell")) {
                    String name = "fi_shm://fastrmi-ns" + bell[2] + "-" + bell[0] + "-" + random.nextInt() + ":"
                            + random.nextInt(4) + ":" + random.nextInt(4) + "\0";
                    seeds.add(NativeAddressBytes.ofi(1, (int) bell[0], (int) bell[1], name.getBytes(StandardCharsets.US_ASCII)));
                }
                seeds.add(NativeAddressBytes.ofi(1, 1, 1, "fi_shm://fastrmi-ns1-1-1:0:0\0".getBytes(StandardCharsets.US_ASCII)));
            }
            case "ucx:shm" -> {
                for (long[] worker : userFiles("ucx")) {
                    seeds.add(NativeAddressBytes.ucxWorker((int) worker[0], (int) worker[1]));
                }
                seeds.add(new byte[] {'U', 1, 0, 0, 0, 1, 0, 0, 0});
            }
            case "ofi:tcp;ofi_rxm" -> seeds.add(NativeAddressBytes.ofi(0, 0, 0, NativeAddressBytes.sockaddrIn(1024 + random.nextInt(64000), 127, 0, 0, 1)));
            default -> seeds.add(new byte[] {'S', (byte) random.nextInt(256), (byte) random.nextInt(256), 4});
        }
        return seeds;
    }

    /** (pid, number, pid namespace) of this user's files of a kind in /dev/shm/fastrmi-UID (KIND-nsNS-PID-N). */
    private static List<long[]> userFiles(String kind) {
        List<long[]> found = new ArrayList<>();
        Path folder;
        try {
            folder = Path.of("/dev/shm/fastrmi-" + Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException e) {
            return found;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, kind + "-ns*-*-*")) {
            for (Path file : files) {
                String[] parts = file.getFileName().toString().split("-");
                found.add(new long[] {Long.parseLong(parts[2]), Long.parseLong(parts[3]), Long.parseLong(parts[1].substring(2))});
            }
        } catch (IOException | RuntimeException e) {
            // no folder yet, or a name of another shape: fewer seeds
        }
        return found;
    }

}
