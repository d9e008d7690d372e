package io.fastrmi.optrmi.lean;

import java.io.IOException;

/**
 * A JDK-made {@code ObjectInputStream} (RMI's marshal stream) that reads the lean format. Its
 * final {@code readObject} (and the JDK's private readString) cannot be overridden: the agent's
 * advice on the private {@code readObject(Class)} under both calls this instead.
 */
public interface LeanObjectInput {

    /** A call's message begins. */
    void beginMessage() throws IOException;

    /** This stream's hold on its connection's reader (which call's it is). */
    InputHold hold();

    /** An object; {@code type} is Object, or String where RMI reads a String only (the registry's names). */
    Object leanReadObject(Class<?> type) throws IOException, ClassNotFoundException;
}
