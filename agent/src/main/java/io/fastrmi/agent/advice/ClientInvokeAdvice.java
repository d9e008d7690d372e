package io.fastrmi.agent.advice;

import io.fastrmi.agent.bootstrap.RmiCalls;
import java.lang.reflect.Method;
import net.bytebuddy.asm.Advice;

/** {@code UnicastRef.invoke(Remote, Method, Object[], long)}: a client call through a 1.2+ stub or proxy. */
public final class ClientInvokeAdvice {

    private ClientInvokeAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    static Object enter(@Advice.Argument(1) Method method) {
        return RmiCalls.clientBegin(method.getName());
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object event) {
        RmiCalls.clientEnd(event);
    }
}
