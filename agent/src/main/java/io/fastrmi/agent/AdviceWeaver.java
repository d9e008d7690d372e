package io.fastrmi.agent;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import io.fastrmi.agent.advice.ChooseFactoryAdvice;
import io.fastrmi.agent.advice.ClientCallEndAdvice;
import io.fastrmi.agent.advice.ClientInvokeAdvice;
import io.fastrmi.agent.advice.ClientNewCallAdvice;
import io.fastrmi.agent.advice.CustomClientFactoryAdvice;
import io.fastrmi.agent.advice.CustomServerFactoryAdvice;
import io.fastrmi.agent.advice.ExecuteCallAdvice;
import io.fastrmi.agent.advice.ServerDispatchAdvice;
import io.fastrmi.agent.advice.ServerLogCallAdvice;
import java.util.List;
import java.util.Map;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.pool.TypePool;

/** Inlines the advice classes into the JDK's RMI classes, with Byte Buddy. */
final class AdviceWeaver {

    /** Which advice goes where, by internal class name. */
    final Map<String, List<AsmVisitorWrapper>> adviceByClass = Map.of(
            "sun/rmi/server/UnicastRef", List.of(
                    Advice.to(ClientInvokeAdvice.class).on(named("invoke").and(takesArguments(4))),
                    Advice.to(ClientNewCallAdvice.class).on(named("newCall").and(takesArguments(4))),
                    Advice.to(ClientCallEndAdvice.class).on(
                            named("done").and(takesArguments(1)).or(named("invoke").and(takesArguments(1))))),
            "sun/rmi/server/UnicastServerRef", List.of(
                    Advice.to(ServerDispatchAdvice.class).on(named("dispatch").and(takesArguments(2))),
                    Advice.to(ServerLogCallAdvice.class).on(named("logCall").and(takesArguments(2)))),
            "sun/rmi/transport/StreamRemoteCall", List.of(
                    Advice.to(ExecuteCallAdvice.class).on(named("executeCall").and(takesArguments(0)))),
            "sun/rmi/transport/tcp/TCPEndpoint", List.of(
                    Advice.to(ChooseFactoryAdvice.class).on(named("chooseFactory").and(takesArguments(0))),
                    Advice.to(CustomClientFactoryAdvice.class).on(named("newSocket").and(takesArguments(0))),
                    Advice.to(CustomServerFactoryAdvice.class).on(named("newServerSocket").and(takesArguments(0)))));

    /**
     * The class in {@code bytes} with its advice inlined. The class is described from its bytes
     * and the boot class path's class files only, never by loading anything (on JDK 25, describing
     * JDK types through loaded classes can skip java.io types), and only method bodies change, so
     * this also works as a retransformation.
     */
    byte[] weave(String className, byte[] bytes) {
        List<AsmVisitorWrapper> advice = adviceByClass.get(className);
        if (advice == null) {
            throw new IllegalArgumentException("no advice for " + className);
        }
        String name = className.replace('/', '.');
        ClassFileLocator locator = new ClassFileLocator.Compound(
                ClassFileLocator.Simple.of(name, bytes), ClassFileLocator.ForClassLoader.ofBootLoader());
        TypePool pool = TypePool.Default.of(locator);
        DynamicType.Builder<?> builder = new ByteBuddy().with(TypeValidation.DISABLED)
                .redefine(pool.describe(name).resolve(), locator);
        for (AsmVisitorWrapper wrapper : advice) {
            builder = builder.visit(wrapper);
        }
        return builder.make(pool).getBytes();
    }
}
