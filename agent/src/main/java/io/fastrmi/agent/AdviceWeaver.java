package io.fastrmi.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.fastrmi.agent.advice.ChooseFactoryAdvice;
import io.fastrmi.agent.advice.ClientCallEndAdvice;
import io.fastrmi.agent.advice.ClientInvokeAdvice;
import io.fastrmi.agent.advice.ClientNewCallAdvice;
import io.fastrmi.agent.advice.ConnectionFreeAdvice;
import io.fastrmi.agent.advice.ConnectionPingAdvice;
import io.fastrmi.agent.advice.CustomClientFactoryAdvice;
import io.fastrmi.agent.advice.CustomServerFactoryAdvice;
import io.fastrmi.agent.advice.DgcCallAdvice;
import io.fastrmi.agent.advice.ExecuteCallAdvice;
import io.fastrmi.agent.advice.LeanInputAdvice;
import io.fastrmi.agent.advice.LeanOutputAdvice;
import io.fastrmi.agent.advice.LeanReadObjectAdvice;
import io.fastrmi.agent.advice.LeanWriteObjectAdvice;
import io.fastrmi.agent.advice.ServerDispatchAdvice;
import io.fastrmi.agent.advice.ServerLogCallAdvice;
import io.fastrmi.agent.advice.SingleCallAdvice;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.matcher.ElementMatchers;
import net.bytebuddy.pool.TypePool;

/** Inlines the advice classes into the JDK's RMI classes, with Byte Buddy. */
final class AdviceWeaver {

    /** An advice class and the methods it is inlined into, each named with its exact parameter types. */
    record Hook(Class<?> advice, ElementMatcher<? super MethodDescription> methods) {
    }

    /** Which advice goes where, by internal class name (signatures as javap prints them on JDK 17 and 25). */
    static final Map<String, List<Hook>> HOOKS = Map.of(
            "sun/rmi/server/UnicastRef", List.of(
                    new Hook(ClientInvokeAdvice.class,
                            method("invoke", "java.rmi.Remote", "java.lang.reflect.Method", "java.lang.Object[]", "long")),
                    new Hook(ClientNewCallAdvice.class,
                            method("newCall", "java.rmi.server.RemoteObject", "java.rmi.server.Operation[]", "int", "long")),
                    new Hook(DgcCallAdvice.class,
                            method("newCall", "java.rmi.server.RemoteObject", "java.rmi.server.Operation[]", "int", "long")),
                    new Hook(ClientCallEndAdvice.class, method("done", "java.rmi.server.RemoteCall")
                            .or(method("invoke", "java.rmi.server.RemoteCall")))),
            "sun/rmi/server/UnicastServerRef", List.of(
                    new Hook(ServerDispatchAdvice.class, method("dispatch", "java.rmi.Remote", "java.rmi.server.RemoteCall")),
                    new Hook(ServerLogCallAdvice.class, method("logCall", "java.rmi.Remote", "java.lang.Object"))),
            "sun/rmi/transport/StreamRemoteCall", List.of(
                    new Hook(ExecuteCallAdvice.class, method("executeCall")),
                    new Hook(LeanOutputAdvice.class, method("getOutputStream", "boolean")),
                    new Hook(LeanInputAdvice.class, method("getInputStream"))),
            "java/io/ObjectOutputStream", List.of(
                    new Hook(LeanWriteObjectAdvice.class, method("writeObject", "java.lang.Object"))),
            "java/io/ObjectInputStream", List.of(
                    new Hook(LeanReadObjectAdvice.class, method("readObject", "java.lang.Class"))),
            "sun/rmi/transport/tcp/TCPChannel", List.of(
                    new Hook(ConnectionFreeAdvice.class, method("free", "sun.rmi.transport.Connection", "boolean"))),
            "sun/rmi/transport/tcp/TCPConnection", List.of(
                    new Hook(SingleCallAdvice.class, method("isReusable")),
                    new Hook(ConnectionPingAdvice.class, method("isDead"))),
            "sun/rmi/transport/tcp/TCPEndpoint", List.of(
                    new Hook(ChooseFactoryAdvice.class, method("chooseFactory")),
                    new Hook(CustomClientFactoryAdvice.class, method("newSocket")),
                    new Hook(CustomServerFactoryAdvice.class, method("newServerSocket"))));

    /** A method by its name and exact parameter types: a JDK whose signature changed is not woven blindly. */
    static ElementMatcher.Junction<MethodDescription> method(String name, String... parameterTypes) {
        ElementMatcher.Junction<MethodDescription> matcher =
                ElementMatchers.<MethodDescription>named(name).and(takesArguments(parameterTypes.length));
        for (int i = 0; i < parameterTypes.length; i++) {
            matcher = matcher.and(takesArgument(i, named(parameterTypes[i])));
        }
        return matcher;
    }

    /**
     * The class in {@code bytes} with its advice inlined. The class is described from its bytes
     * and the boot class path's class files only, never by loading anything (on JDK 25, describing
     * JDK types through loaded classes can skip java.io types), and only method bodies change, so
     * this also works as a retransformation. The advice visits the class as ASM reads it, without
     * Byte Buddy's type builder: each JVM that starts RMI weaves these classes, and the builder
     * (method graphs of the whole hierarchy, a type writer) cost a third more CPU and 300 more
     * classes than the advice alone for the same bytecode.
     */
    byte[] weave(String className, byte[] bytes) {
        List<Hook> hooks = HOOKS.get(className);
        if (hooks == null) {
            throw new IllegalArgumentException("no advice for " + className);
        }
        String name = className.replace('/', '.');
        ClassFileLocator locator = new ClassFileLocator.Compound(
                ClassFileLocator.Simple.of(name, bytes), ClassFileLocator.ForClassLoader.ofBootLoader());
        TypePool pool = TypePool.Default.of(locator);
        TypeDescription type = pool.describe(name).resolve();
        List<AsmVisitorWrapper> advice = new ArrayList<>(hooks.size());
        for (Hook hook : hooks) {
            advice.add(Advice.to(hook.advice()).on(hook.methods()));
        }
        AsmVisitorWrapper wrapper = new AsmVisitorWrapper.Compound(advice);
        int writerFlags = wrapper.mergeWriter(AsmVisitorWrapper.NO_FLAGS);
        int readerFlags = wrapper.mergeReader(AsmVisitorWrapper.NO_FLAGS);
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, writerFlags);
        reader.accept(wrapper.wrap(type, writer, new NoImplementationContext(type, ClassFileVersion.ofClassFile(bytes)), pool,
                type.getDeclaredFields(), type.getDeclaredMethods(), writerFlags, readerFlags), readerFlags);
        return writer.toByteArray();
    }

    /** Inlined advice adds no methods or fields to the class, so it needs no context that could. */
    private static final class NoImplementationContext extends Implementation.Context.Disabled {
        NoImplementationContext(TypeDescription type, ClassFileVersion version) {
            super(type, version, Implementation.Context.FrameGeneration.GENERATE);
        }
    }
}
