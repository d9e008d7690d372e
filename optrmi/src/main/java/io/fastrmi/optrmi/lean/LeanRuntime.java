package io.fastrmi.optrmi.lean;

import java.io.ObjectInputStream;

/** What the lean format needs of this JVM, for the agent that puts it under RMI. */
public final class LeanRuntime {

    private LeanRuntime() {
    }

    /** Why the lean format cannot run here (java.io not opened to FastRMI), or null when it can. */
    public static String unavailableReason() {
        return JdkSerialClasses.unavailableReason();
    }

    /**
     * Why this JVM's lean streams read and set fields through the JDK's field reflector rather than
     * in place ({@code jdk.internal.misc} not exported to FastRMI), or null when they do it in place.
     */
    public static String directFieldsUnavailableReason() {
        return DirectFields.unavailableReason();
    }

    /**
     * Gives a JDK stream used again for another call the serial filter a new stream would get (the
     * filter factory's, and none set by RMI yet), so JEP 290 filters decide per call as on stock RMI.
     */
    public static void renewFilter(ObjectInputStream in) {
        JdkSerialClasses.resetStreamFilter(in);
    }

    /**
     * As {@link #renewFilter}, but with no filter, and without asking the filter factory: for a
     * stream of FastRMI's own that reads only what FastRMI wrote to it in memory (its warm-up), so
     * that no filter of the application's sees those objects and its factory is not asked per message.
     */
    public static void renewWithoutFilter(ObjectInputStream in) {
        JdkSerialClasses.resetStreamFilter(in, null);
    }
}
