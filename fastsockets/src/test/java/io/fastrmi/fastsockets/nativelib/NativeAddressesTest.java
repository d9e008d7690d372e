package io.fastrmi.fastsockets.nativelib;

import static io.fastrmi.testkit.NativeAddressBytes.ofi;
import static io.fastrmi.testkit.NativeAddressBytes.sockaddrIn;
import static io.fastrmi.testkit.NativeAddressBytes.ucxWorker;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fastrmi.testkit.NativeAddressBytes;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Native addresses as a peer may send them: the good ones pass, and nothing else does. */
class NativeAddressesTest {

    private static final InetAddress PEER = address(10, 1, 0, 7);

    @Test
    void aLibfabricShmAddressPassesAsItIs() throws Exception {
        byte[] shm = ofi(1, 4242, 3, "fi_shm://fastrmi-ns4026531836-4242-77:0:1\0".getBytes(StandardCharsets.US_ASCII));
        assertArrayEquals(shm, NativeAddresses.checked(shm, PEER));
    }

    @Test
    void aLibfabricSocketAddressPassesAndNamesItsHost() throws Exception {
        byte[] tcp = ofi(0, 0, 0, sockaddrIn(45051, 192, 0, 2, 2));
        assertArrayEquals(tcp, NativeAddresses.checked(tcp, PEER));
        assertEquals("192.0.2.2:45051", NativeAddresses.ofiSocketAddress(tcp).toString().replaceFirst("^[^/]*/", ""));
    }

    @Test
    void aUcxListenerIsReachedAtThePeersIpNeverAtOneItSends() throws Exception {
        byte[] listener = {'S', (byte) 0xaf, (byte) 0xfb, 4};
        byte[] reached = NativeAddresses.checked(listener, PEER);
        assertArrayEquals(new byte[] {'S', (byte) 0xaf, (byte) 0xfb, 4, 10, 1, 0, 7}, reached);
        byte[] withIp = Arrays.copyOf(reached, reached.length);
        assertThrows(NativeAddresses.InvalidAddressException.class, () -> NativeAddresses.checked(withIp, PEER));
        assertThrows(NativeAddresses.InvalidAddressException.class,
                () -> NativeAddresses.checked(new byte[] {'S', 1, 2, 6}, PEER), "an IPv6 listener for an IPv4 peer");
    }

    @Test
    void forgedAddressesAreRefusedWithWhatIsWrong() {
        assertRefused(ofi(1, 4242, 3, "/etc/passwd\0".getBytes(StandardCharsets.US_ASCII)), "fi_shm://fastrmi-nsNS-4242-R:N:N");
        assertRefused(ofi(1, 4242, 3, "fi_shm://fastrmi-ns4026531836-1-77:0:1\0".getBytes(StandardCharsets.US_ASCII)), "fi_shm://fastrmi-nsNS-4242-R:N:N");
        assertRefused(ofi(1, 4242, 0, "fi_shm://fastrmi-ns4026531836-4242-77:0:1\0".getBytes(StandardCharsets.US_ASCII)), "without a doorbell");
        assertRefused(ofi(0, 4242, 3, sockaddrIn(1, 10, 0, 0, 1)), "with a doorbell");
        assertRefused(ofi(0, 0, 0, sockaddrIn(0, 10, 0, 0, 1)), "without a port");
        assertRefused(ofi(0, 0, 0, sockaddrIn(80, 0, 0, 0, 0)), "no host's");
        assertRefused(ofi(0, 0, 0, sockaddrIn(80, 224, 0, 0, 1)), "no host's");
        assertRefused(ofi(7, 0, 0, sockaddrIn(80, 10, 0, 0, 1)), "wait mode 7");
        assertRefused(new byte[] {'O', 0, 0}, "shorter than its header");
        assertRefused(ofi(1, 4242, 3, new byte[0]), "empty");
        assertRefused(ofi(0, 0, 0, new byte[] {2}), "of 1 bytes");
        assertRefused(new byte[] {'X', 1}, "unknown kind 0x58");
        assertRefused(new byte[0], "0 bytes");
        assertRefused(new byte[] {'U'}, "UCX worker reference of 1 bytes");
        assertRefused(new byte[] {'U', 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0}, "UCX worker reference of 11 bytes");
        assertRefused(ucxWorker(0, 3), "pid 0");
        assertRefused(ucxWorker(4242, 0), "number 0");
    }

    @Test
    void aSharedMemoryAddressNamesItsProcessASocketAddressNone() throws Exception {
        assertEquals(4242, NativeAddresses.namedProcess(NativeAddresses.checked(
                ofi(1, 4242, 3, "fi_shm://fastrmi-ns4026531836-4242-77:0:1\0".getBytes(StandardCharsets.US_ASCII)), PEER)));
        assertEquals(4242, NativeAddresses.namedProcess(NativeAddresses.checked(ucxWorker(4242, 3), PEER)));
        assertEquals(0, NativeAddresses.namedProcess(NativeAddresses.checked(ofi(0, 0, 0, sockaddrIn(80, 10, 0, 0, 1)), PEER)));
        assertEquals(0, NativeAddresses.namedProcess(NativeAddresses.checked(new byte[] {'S', 1, 2, 4}, PEER)));
    }

    /** Random and mutated addresses: only ever a clean refusal or a well-formed address. */
    @Test
    void fuzzedAddressesNeverFailAnyOtherWay() {
        byte[][] seeds = {
            ofi(1, 4242, 3, "fi_shm://fastrmi-ns4026531836-4242-77:0:1\0".getBytes(StandardCharsets.US_ASCII)),
            ofi(0, 0, 0, sockaddrIn(45051, 192, 0, 2, 2)),
            {'S', 1, 2, 4},
            ucxWorker(4242, 3),
        };
        SplittableRandom random = new SplittableRandom(20261123);
        int refused = 0;
        for (int i = 0; i < 200_000; i++) {
            byte[] input = i % 4 == 0 ? NativeAddressBytes.random(random) : NativeAddressBytes.mutate(seeds[random.nextInt(seeds.length)], random);
            try {
                byte[] out = NativeAddresses.checked(input, PEER);
                assertTrue(out.length > 0 && "OUS".indexOf(out[0]) >= 0);
            } catch (NativeAddresses.InvalidAddressException e) {
                assertTrue(e.getMessage() != null && !e.getMessage().isBlank());
                refused++;
            }
        }
        assertTrue(refused > 100_000, "most of them are refused: " + refused);
    }

    private static void assertRefused(byte[] address, String why) {
        var e = assertThrows(NativeAddresses.InvalidAddressException.class, () -> NativeAddresses.checked(address, PEER));
        assertTrue(e.getMessage().contains(why), e.getMessage());
    }

    private static InetAddress address(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
