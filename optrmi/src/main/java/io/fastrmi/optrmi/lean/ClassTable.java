package io.fastrmi.optrmi.lean;

import java.io.IOException;
import java.io.InvalidClassException;
import java.io.StreamCorruptedException;
import java.util.ArrayList;
import java.util.List;

/**
 * A reader's table of the peer's classes, by the ids the peer's writer gave them: each descriptor
 * as sent, checked once against the local class its name resolves to (or why none does). Descriptor
 * frames fill it whatever becomes of the data after them, so it stays in step with the writer's.
 */
final class ClassTable implements InBuffer.DescriptorReader {

    /** One entry of the incoming class table: the local class, or why there is none. */
    static final class Entry {
        final LeanClass.Sent sent;
        final LeanClass local;
        final Exception problem;
        final Object context;
        /** What the JDK would send for the local class (null with no local class). */
        final JdkDescriptor jdkDescriptor;

        Entry(LeanClass.Sent sent, LeanClass local, Exception problem, Object context) {
            this.sent = sent;
            this.local = local;
            this.problem = problem;
            this.context = context;
            this.jdkDescriptor = local == null ? null : JdkDescriptor.of(local.type);
        }
    }

    private final ClassResolver resolver;
    private final List<Entry> classes = new ArrayList<>();

    ClassTable(ClassResolver resolver) {
        this.resolver = resolver;
    }

    /** A descriptor frame: each new class's id (the table's size) and descriptor, checked against the local class. */
    @Override
    public void read(InBuffer frame) throws IOException {
        while (!frame.exhausted()) {
            int id = frame.readVarint();
            if (id != classes.size()) {
                throw new StreamCorruptedException("lean stream: a descriptor for class id " + id + " where " + classes.size() + " was next");
            }
            classes.add(firstSight(LeanClass.Sent.read(frame)));
        }
    }

    /** The entry of a class id the peer sent; resolved again when the class loader in effect changed. */
    Entry entry(int id) throws IOException {
        if (id >= classes.size()) {
            throw new StreamCorruptedException("lean stream: class id " + id + " of " + classes.size() + " sent");
        }
        Entry entry = classes.get(id);
        if (entry.context != resolver.context()) {
            entry = firstSight(entry.sent);
            classes.set(id, entry);
        }
        return entry;
    }

    private Entry firstSight(LeanClass.Sent sent) {
        Object context = resolver.context();
        try {
            Class<?> type;
            if (sent.kind == LeanFormat.KIND_PROXY) {
                type = resolver.resolveProxy(sent.interfaces, sent.annotation);
                if (!java.lang.reflect.Proxy.isProxyClass(type)) {
                    throw new InvalidClassException(sent.name, "not a proxy class here");
                }
            } else {
                type = resolver.resolve(sent.name, sent.annotation);
            }
            LeanClass local = LeanClass.of(type);
            local.check(sent);
            return new Entry(sent, local, null, context);
        } catch (ClassNotFoundException | InvalidClassException e) {
            return new Entry(sent, null, e, context);
        } catch (RuntimeException | LinkageError e) {
            return new Entry(sent, null, new ClassNotFoundException(sent.name + " (" + e + ")", e), context);
        }
    }

    /** The entry's local class, or the reason there is none as the exception the JDK would give. */
    static LeanClass usable(Entry entry) throws IOException, ClassNotFoundException {
        if (entry.local != null) {
            return entry.local;
        }
        if (entry.problem instanceof InvalidClassException e) {
            InvalidClassException again = new InvalidClassException(e.classname, stripClassName(e));
            again.initCause(e);
            throw again;
        }
        // A class that cannot be resolved here: the rest of the message cannot be decoded.
        throw new ClassNotFoundException(entry.sent.name, entry.problem);
    }

    private static String stripClassName(InvalidClassException e) {
        String message = e.getMessage();
        String prefix = e.classname + "; ";
        return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }
}
