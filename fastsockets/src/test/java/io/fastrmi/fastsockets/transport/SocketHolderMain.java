package io.fastrmi.fastsockets.transport;

import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Asks the library which process holds a socket: {@code HOLDS case answer} for the client's end
 * of a loopback connection as this process, another process, another inode, pids no process has,
 * and after the socket closed. Usage: {@code SocketHolderMain LIBRARY}.
 */
public final class SocketHolderMain {

    private SocketHolderMain() {
    }

    public static void main(String[] args) throws Exception {
        NativeLibrary library = LibraryMains.load(args[0], SocketHolderMain.class);
        long self = ProcessHandle.current().pid();
        long inode;
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                Socket client = new Socket(server.getInetAddress(), server.getLocalPort());
                Socket accepted = server.accept()) {
            NativeLibrary.PeerSocket peer = library.tcpPeer((InetSocketAddress) accepted.getRemoteSocketAddress(),
                    (InetSocketAddress) accepted.getLocalSocketAddress());
            inode = peer.inode();
            System.out.println("HOLDS self " + library.processHoldsSocket(self, inode));
            Process other = new ProcessBuilder("sleep", "30").start();
            try {
                System.out.println("HOLDS other " + library.processHoldsSocket(other.pid(), inode));
            } finally {
                other.destroy();
            }
            System.out.println("HOLDS another-inode " + library.processHoldsSocket(self, inode + 1_000_000));
            System.out.println("HOLDS pid-0 " + library.processHoldsSocket(0, inode));
            System.out.println("HOLDS pid-negative " + library.processHoldsSocket(-self, inode));
            System.out.println("HOLDS pid-max " + library.processHoldsSocket(Long.MAX_VALUE, inode));
        }
        System.out.println("HOLDS closed " + library.processHoldsSocket(self, inode));
    }
}
