package io.fastrmi.optrmi;

import java.nio.ByteOrder;
import java.util.Objects;

/**
 * What two JVMs must share before the lean wire format may be used between them: the same Java
 * specification version, the same VM build and the same byte order (the seeds' homogeneous-cluster
 * assumption). Carried in the handshake record; compared with {@link #matches}.
 */
public record JvmFingerprint(String specificationVersion, String vmName, String vmVersion, ByteOrder byteOrder) {

    public JvmFingerprint {
        Objects.requireNonNull(specificationVersion, "specificationVersion");
        Objects.requireNonNull(vmName, "vmName");
        Objects.requireNonNull(vmVersion, "vmVersion");
        Objects.requireNonNull(byteOrder, "byteOrder");
    }

    /** The fingerprint of the running JVM. */
    public static JvmFingerprint current() {
        return new JvmFingerprint(
                System.getProperty("java.specification.version"),
                System.getProperty("java.vm.name"),
                System.getProperty("java.vm.version"),
                ByteOrder.nativeOrder());
    }

    /** True when serialized class layouts and primitive byte order are the same on both JVMs. */
    public boolean matches(JvmFingerprint other) {
        return equals(other);
    }

    /**
     * The first difference from {@code other}, in words for a log line or a JFR event, or the empty
     * string when they match.
     */
    public String differenceFrom(JvmFingerprint other) {
        if (!specificationVersion.equals(other.specificationVersion)) {
            return "Java " + specificationVersion + " vs " + other.specificationVersion;
        }
        if (!vmName.equals(other.vmName)) {
            return "VM " + vmName + " vs " + other.vmName;
        }
        if (!vmVersion.equals(other.vmVersion)) {
            return "VM version " + vmVersion + " vs " + other.vmVersion;
        }
        if (!byteOrder.equals(other.byteOrder)) {
            return "byte order " + byteOrder + " vs " + other.byteOrder;
        }
        return "";
    }

    @Override
    public String toString() {
        return "Java " + specificationVersion + ", " + vmName + " " + vmVersion + ", " + byteOrder;
    }
}
