package io.fastrmi.config;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;

/** Whether an address belongs to this machine: loopback, any-local, or on one of its interfaces. */
public final class LocalAddresses {

    private LocalAddresses() {
    }

    public static boolean isLocal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }
}
