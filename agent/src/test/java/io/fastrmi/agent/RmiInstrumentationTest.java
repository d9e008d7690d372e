package io.fastrmi.agent;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import org.junit.jupiter.api.Test;

/** The cheap look premain takes at the classes loaded before it. */
class RmiInstrumentationTest {

    private static final Module RMI = ModuleLayer.boot().findModule("java.rmi").orElseThrow();

    @Test
    void everyTargetPassesTheLookThatSkipsNames() throws ClassNotFoundException {
        for (String target : RmiInstrumentation.TARGETS) {
            Class<?> type = Class.forName(target.replace('/', '.'), false, null);
            assertTrue(RmiInstrumentation.mayBeTarget(type, RMI), target + " would be missed when loaded before premain");
        }
    }

    @Test
    void theRestOfJavaBaseIsPassedOverUnnamed() {
        assertFalse(RmiInstrumentation.mayBeTarget(String.class, RMI));
        assertFalse(RmiInstrumentation.mayBeTarget(HashMap.class, RMI));
        assertFalse(RmiInstrumentation.mayBeTarget(Thread.class, RMI));
        assertFalse(RmiInstrumentation.mayBeTarget(RmiInstrumentationTest.class, RMI), "a class of the application");
    }
}
