package io.fastrmi.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fastrmi.agent.bootstrap.RmiCalls;
import org.junit.jupiter.api.Test;

class RmiCallsTest {

    @Test
    void methodNamesComeFromMethodsAndOperations() throws Exception {
        assertEquals("hashCode", RmiCalls.methodName(Object.class.getMethod("hashCode")));
        assertEquals("lookup", RmiCalls.methodName(operation("java.rmi.Remote lookup(java.lang.String)")));
        assertEquals("dirty", RmiCalls.methodName(
                operation("java.rmi.dgc.Lease dirty(java.rmi.server.ObjID[], long, java.rmi.dgc.Lease)")));
        assertEquals("list", RmiCalls.methodName(operation("list")));
        assertNull(RmiCalls.methodName(null));
    }

    /** What a 1.1 skeleton's Operation prints (java.rmi.server.Operation is deprecated for removal). */
    private static Object operation(String signature) {
        return new Object() {
            @Override
            public String toString() {
                return signature;
            }
        };
    }
}
