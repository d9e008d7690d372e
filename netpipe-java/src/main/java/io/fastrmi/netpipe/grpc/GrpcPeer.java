package io.fastrmi.netpipe.grpc;

import io.fastrmi.netpipe.np.Calls;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * gRPC-java (Netty, plain TCP) as a reference peer of netpipe-java: the kernels as unary methods of
 * one service, their data through {@link GrpcCodec}, Netty's {@code directExecutor} on both ends (the
 * fastest setting measured here). gRPC has no call back to a client's object, so {@code pingpong}
 * fails on it, saying so.
 */
public final class GrpcPeer {

    private static final String SERVICE = "netpipe.Bench";
    private static final int MAX_MESSAGE = 80 * 1024 * 1024;

    private static final MethodDescriptor<Object, Object> PING = method("ping");
    private static final MethodDescriptor<Object, Object> PING_ARGS = method("pingArgs");
    private static final MethodDescriptor<Object, Object> ECHO = method("echo");
    private static final MethodDescriptor<Object, Object> TAKE = method("take");

    private GrpcPeer() {
    }

    private static MethodDescriptor<Object, Object> method(String name) {
        return MethodDescriptor.<Object, Object>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(GrpcCodec.INSTANCE).setResponseMarshaller(GrpcCodec.INSTANCE).build();
    }

    /** Serves on {@code port} (0: a free one) until the process ends; returns the server. */
    public static Server serve(int port) throws IOException {
        ServerServiceDefinition service = ServerServiceDefinition.builder(SERVICE)
                .addMethod(PING, unary(request -> GrpcCodec.NOTHING))
                .addMethod(PING_ARGS, unary(request -> GrpcCodec.NOTHING))
                .addMethod(ECHO, unary(request -> request))
                .addMethod(TAKE, unary(request -> GrpcCodec.NOTHING))
                .build();
        return NettyServerBuilder.forPort(port).directExecutor().maxInboundMessageSize(MAX_MESSAGE).addService(service)
                .build().start();
    }

    private static ServerCallHandler<Object, Object> unary(UnaryOperator<Object> handler) {
        return ServerCalls.asyncUnaryCall((request, response) -> {
            response.onNext(handler.apply(request));
            response.onCompleted();
        });
    }

    public static GrpcCalls connect(String host, int port) {
        ManagedChannel channel = NettyChannelBuilder.forAddress(new InetSocketAddress(host, port)).usePlaintext()
                .directExecutor().maxInboundMessageSize(MAX_MESSAGE).build();
        return new GrpcCalls(channel);
    }

    /** The kernels' calls on a gRPC channel. */
    public static final class GrpcCalls implements Calls, AutoCloseable {
        private final ManagedChannel channel;

        GrpcCalls(ManagedChannel channel) {
            this.channel = channel;
        }

        /** One unary call; null crosses as {@link GrpcCodec#NOTHING}. */
        private Object call(MethodDescriptor<Object, Object> method, Object request) {
            Object response = ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT,
                    request == null ? GrpcCodec.NOTHING : request);
            return response == GrpcCodec.NOTHING ? null : response;
        }

        @Override
        public void ping() {
            call(PING, null);
        }

        @Override
        public void ping(int a, int b) {
            call(PING_ARGS, new int[] {a, b});
        }

        @Override
        public void ping(int a, int b, float c, float d) {
            call(PING_ARGS, new float[] {a, b, c, d});
        }

        @Override
        public Object ping(Object obj) {
            return call(ECHO, obj);
        }

        @Override
        public Object pingpong(Object obj) {
            throw new UnsupportedOperationException("gRPC has no call back to a client's object");
        }

        @Override
        public byte[] echo(byte[] values) {
            return (byte[]) call(ECHO, values);
        }

        @Override
        public int[] echo(int[] values) {
            return (int[]) call(ECHO, values);
        }

        @Override
        public double[] echo(double[] values) {
            return (double[]) call(ECHO, values);
        }

        @Override
        public void take(byte[] values) {
            call(TAKE, values);
        }

        @Override
        public void take(int[] values) {
            call(TAKE, values);
        }

        @Override
        public void take(double[] values) {
            call(TAKE, values);
        }

        @Override
        public void close() throws InterruptedException {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
