package io.fastrmi.optrmi.lean;

import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Map;

/**
 * Resolves a peer's class names in one class loader (the shared classpath of a lean connection),
 * as {@code ObjectInputStream.resolveClass} does: the class is loaded, never initialized.
 */
public final class ClassLoaderResolver implements ClassResolver {

    private static final Map<String, Class<?>> PRIMITIVES = Map.of(
            "boolean", boolean.class, "byte", byte.class, "char", char.class, "short", short.class,
            "int", int.class, "long", long.class, "float", float.class, "double", double.class, "void", void.class);

    private final ClassLoader loader;

    public ClassLoaderResolver(ClassLoader loader) {
        this.loader = loader;
    }

    /** A primitive type by its name ("int"), or null. */
    static Class<?> primitive(String name) {
        return PRIMITIVES.get(name);
    }

    @Override
    public Object context() {
        return loader;
    }

    /** The class of a name (annotations are not used: one classpath). */
    @Override
    public Class<?> resolve(String name, String annotation) throws ClassNotFoundException {
        Class<?> primitive = PRIMITIVES.get(name);
        if (primitive != null) {
            return primitive;
        }
        return Class.forName(name, false, loader);
    }

    @Override
    @SuppressWarnings("deprecation")
    public Class<?> resolveProxy(String[] interfaces, String annotation) throws ClassNotFoundException {
        ClassLoader nonPublicLoader = null;
        Class<?>[] types = new Class<?>[interfaces.length];
        for (int i = 0; i < interfaces.length; i++) {
            types[i] = Class.forName(interfaces[i], false, loader);
            if (!types[i].isInterface()) {
                throw new ClassNotFoundException(interfaces[i] + " is not an interface");
            }
            if (!Modifier.isPublic(types[i].getModifiers())) {
                ClassLoader own = types[i].getClassLoader();
                if (nonPublicLoader != null && nonPublicLoader != own) {
                    throw new ClassNotFoundException("non-public interfaces of a proxy in different class loaders");
                }
                nonPublicLoader = own;
            }
        }
        try {
            return Proxy.getProxyClass(nonPublicLoader != null ? nonPublicLoader : loader, types);
        } catch (IllegalArgumentException e) {
            throw new ClassNotFoundException("no proxy class for " + java.util.Arrays.toString(interfaces), e);
        }
    }
}
