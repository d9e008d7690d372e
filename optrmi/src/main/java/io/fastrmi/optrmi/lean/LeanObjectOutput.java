package io.fastrmi.optrmi.lean;

import java.io.IOException;

/**
 * A JDK-made {@code ObjectOutputStream} (RMI's marshal stream) that writes the lean format. Its
 * final {@code writeObject} cannot be overridden: the agent's advice on it calls this instead.
 */
public interface LeanObjectOutput {

    /** A call's message begins. */
    void beginMessage() throws IOException;

    void leanWriteObject(Object obj) throws IOException;
}
