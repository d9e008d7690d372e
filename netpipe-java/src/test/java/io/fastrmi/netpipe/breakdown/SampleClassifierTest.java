package io.fastrmi.netpipe.breakdown;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SampleClassifierTest {

    private static Optional<Category> classify(String... frames) {
        return SampleClassifier.classify(List.of(frames));
    }

    @Test
    void aClientWaitingForTheReplyIsNetwork() {
        assertEquals(Optional.of(Category.NETWORK), classify("sun.nio.ch.NioSocketImpl.read", "java.io.BufferedInputStream.fill",
                "java.io.DataInputStream.readByte", "sun.rmi.transport.StreamRemoteCall.executeCall",
                "sun.rmi.server.UnicastRef.invoke", "jdk.proxy2.$Proxy5.ping", "app.Main.main"));
        assertEquals(Optional.of(Category.NETWORK), classify("jdk.internal.foreign.abi.DowncallStub.invoke",
                "io.fastrmi.fastsockets.ffm.FfmStream.read", "sun.rmi.transport.StreamRemoteCall.executeCall",
                "sun.rmi.server.UnicastRef.invoke"));
    }

    @Test
    void theInnermostCategoryDecides() {
        assertEquals(Optional.of(Category.SERIALIZATION), classify("java.io.ObjectOutputStream.writeObject0",
                "java.io.ObjectOutputStream.writeObject", "sun.rmi.server.UnicastRef.marshalValue", "sun.rmi.server.UnicastRef.invoke"));
        assertEquals(Optional.of(Category.NETWORK), classify("sun.nio.ch.NioSocketImpl.write", "java.io.ObjectOutputStream.flush",
                "sun.rmi.server.UnicastRef.invoke"), "serialization flushing to the socket is the socket's time");
        assertEquals(Optional.of(Category.SERIALIZATION), classify("io.fastrmi.optrmi.lean.LeanWriter.writeObject",
                "sun.rmi.transport.LeanConnectionOutputStream.writeObjectLean", "sun.rmi.server.UnicastRef.invoke"));
    }

    @Test
    void rmisOwnWorkIsProtocolAndReferenceBookkeepingIsDgc() {
        assertEquals(Optional.of(Category.PROTOCOL), classify("sun.rmi.transport.StreamRemoteCall.<init>",
                "sun.rmi.server.UnicastRef.invoke"));
        assertEquals(Optional.of(Category.DGC), classify("sun.rmi.transport.DGCClient.registerRefs",
                "sun.rmi.transport.ConnectionInputStream.registerRefs", "sun.rmi.transport.StreamRemoteCall.done",
                "sun.rmi.server.UnicastRef.invoke"));
    }

    @Test
    void theServersRemoteMethodIsApplication() {
        assertEquals(Optional.of(Category.APPLICATION), classify("java.util.ArrayList.add",
                "io.fastrmi.netpipe.bench.kernels.BenchServiceImpl.transform", "jdk.internal.reflect.DirectMethodHandleAccessor.invoke",
                "java.lang.reflect.Method.invoke", "sun.rmi.server.UnicastServerRef.dispatch", "sun.rmi.transport.Transport$1.run"));
        assertEquals(Optional.of(Category.PROTOCOL), classify("java.lang.reflect.Method.invoke",
                "sun.rmi.server.UnicastServerRef.dispatch"));
    }

    @Test
    void aHandlerWaitingForTheNextCallIsLeftOut() {
        assertEquals(Optional.empty(), classify("sun.nio.ch.NioSocketImpl.read", "java.io.DataInputStream.readByte",
                "sun.rmi.transport.tcp.TCPTransport.handleMessages", "sun.rmi.transport.tcp.TCPTransport$ConnectionHandler.run0"));
    }
}
