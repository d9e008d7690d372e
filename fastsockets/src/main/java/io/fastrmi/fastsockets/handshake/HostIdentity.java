package io.fastrmi.fastsockets.handshake;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

/**
 * Which shared memory this JVM can use with whom: the kernel's boot id, the identity of
 * {@code /dev/shm}, the network namespace (UCX's shared-memory transports wake their peers
 * through abstract Unix sockets, which belong to one) and the pid namespace (a pid names a process
 * only within one: libfabric's shm and UCX reach a peer's memory by its pid, and FastRMI's files
 * carry it). Two JVMs with the same identity can reach
 * each other over a shared-memory transport; a handshake carries it so that a server never picks
 * one for a client on another host or in another container, whatever the config lists first.
 */
public final class HostIdentity {

    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");
    private static final Path SHM = Path.of("/dev/shm");
    private static final Path NET_NAMESPACE = Path.of("/proc/self/ns/net");
    private static final Path PID_NAMESPACE = Path.of("/proc/self/ns/pid");
    private static final String CURRENT = read();

    private HostIdentity() {
    }

    static String current() {
        return CURRENT;
    }

    /**
     * This JVM's network namespace as a number ("4026531840"), or null where it cannot be read: TCP
     * ports belong to a namespace, so a directory of listeners must be kept per namespace.
     */
    public static String netNamespace() {
        try {
            String link = Files.readSymbolicLink(NET_NAMESPACE).toString();
            String number = link.replaceAll("[^0-9]", "");
            return number.isEmpty() ? null : number;
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /**
     * "BOOTID.DEV.INODE.net:[N].pid:[N]"; where one cannot be read, an identity of this JVM alone (no other JVM
     * ever matches it, so shared memory is never chosen on a guess).
     */
    private static String read() {
        try {
            String bootId = Files.readString(BOOT_ID, StandardCharsets.US_ASCII).trim();
            Map<String, Object> shm = Files.readAttributes(SHM, "unix:dev,ino");
            return bootId + "." + shm.get("dev") + "." + shm.get("ino") + "." + Files.readSymbolicLink(NET_NAMESPACE) + "."
                    + Files.readSymbolicLink(PID_NAMESPACE);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "jvm-" + UUID.randomUUID();
        }
    }
}
