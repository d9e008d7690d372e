package io.fastrmi.optrmi.lean;

/**
 * How a {@link LeanReader} makes a class name from the peer a local class (RMI: its loader rules). A resolution
 * is kept for the connection while {@link #context()} stays the same object (the class loader
 * in effect); under another, the name is resolved and checked again.
 */
public interface ClassResolver {
    Class<?> resolve(String name, String annotation) throws ClassNotFoundException;

    Class<?> resolveProxy(String[] interfaces, String annotation) throws ClassNotFoundException;

    Object context();

    /** Whether the JDK's stream for this resolver reads a codebase annotation object with each class (RMI's does). */
    default boolean readsAnnotations() {
        return false;
    }
}
