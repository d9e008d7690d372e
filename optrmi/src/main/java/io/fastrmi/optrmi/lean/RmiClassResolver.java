package io.fastrmi.optrmi.lean;

import java.rmi.server.RMIClassLoader;

/**
 * Resolves a peer's class names as RMI's {@code MarshalInputStream} does on the server, through
 * {@link RMIClassLoader} with no default loader: the current thread's context class loader (RMI
 * sets it to the remote object's loader), then {@code java.rmi.server.codebase}, then the class's
 * annotation when {@code java.rmi.server.useCodebaseOnly} is false. The client side resolves the
 * same way (stock RMI tries the latest user-defined loader on the stack first; under one classpath
 * that is the context loader). Resolutions are kept per context class loader.
 */
public final class RmiClassResolver implements ClassResolver {

    private static final boolean USE_CODEBASE_ONLY =
            !"false".equalsIgnoreCase(System.getProperty("java.rmi.server.useCodebaseOnly", "true"));

    @Override
    public Object context() {
        return Thread.currentThread().getContextClassLoader();
    }

    @Override
    public Class<?> resolve(String name, String annotation) throws ClassNotFoundException {
        Class<?> primitive = ClassLoaderResolver.primitive(name);
        if (primitive != null) {
            return primitive;
        }
        try {
            return RMIClassLoader.loadClass(codebase(annotation), name, null);
        } catch (java.net.MalformedURLException e) {
            throw new ClassNotFoundException(name + " (malformed codebase " + annotation + ")", e);
        }
    }

    @Override
    public Class<?> resolveProxy(String[] interfaces, String annotation) throws ClassNotFoundException {
        try {
            return RMIClassLoader.loadProxyClass(codebase(annotation), interfaces, null);
        } catch (java.net.MalformedURLException e) {
            throw new ClassNotFoundException("proxy (malformed codebase " + annotation + ")", e);
        }
    }

    /** RMI's MarshalInputStream reads each class's codebase annotation as an object. */
    @Override
    public boolean readsAnnotations() {
        return true;
    }

    private static String codebase(String annotation) {
        return USE_CODEBASE_ONLY ? null : annotation;
    }
}
