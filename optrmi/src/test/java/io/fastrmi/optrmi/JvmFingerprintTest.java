package io.fastrmi.optrmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class JvmFingerprintTest {

    private static final JvmFingerprint JDK17 =
            new JvmFingerprint("17", "OpenJDK 64-Bit Server VM", "17.0.15+6", ByteOrder.LITTLE_ENDIAN);

    @Test
    void currentDescribesThisJvm() {
        JvmFingerprint current = JvmFingerprint.current();
        assertEquals(System.getProperty("java.specification.version"), current.specificationVersion());
        assertEquals(ByteOrder.nativeOrder(), current.byteOrder());
        assertTrue(current.matches(JvmFingerprint.current()));
    }

    @Test
    void sameFingerprintsMatchWithNoDifference() {
        JvmFingerprint same = new JvmFingerprint("17", "OpenJDK 64-Bit Server VM", "17.0.15+6", ByteOrder.LITTLE_ENDIAN);
        assertTrue(JDK17.matches(same));
        assertEquals("", JDK17.differenceFrom(same));
    }

    @Test
    void eachFieldIsADifference() {
        assertDiffers(new JvmFingerprint("25", JDK17.vmName(), JDK17.vmVersion(), JDK17.byteOrder()), "Java 17 vs 25");
        assertDiffers(new JvmFingerprint("17", "Other VM", JDK17.vmVersion(), JDK17.byteOrder()),
                "VM OpenJDK 64-Bit Server VM vs Other VM");
        assertDiffers(new JvmFingerprint("17", JDK17.vmName(), "17.0.16+8", JDK17.byteOrder()),
                "VM version 17.0.15+6 vs 17.0.16+8");
        assertDiffers(new JvmFingerprint("17", JDK17.vmName(), JDK17.vmVersion(), ByteOrder.BIG_ENDIAN),
                "byte order LITTLE_ENDIAN vs BIG_ENDIAN");
    }

    @Test
    void nullFieldsAreRejected() {
        assertThrows(NullPointerException.class, () -> new JvmFingerprint(null, "vm", "1", ByteOrder.BIG_ENDIAN));
    }

    private static void assertDiffers(JvmFingerprint other, String difference) {
        assertFalse(JDK17.matches(other));
        assertEquals(difference, JDK17.differenceFrom(other));
    }
}
