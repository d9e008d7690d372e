package io.fastrmi.optrmi.lean;

import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What the JDK's {@code ObjectInputStream} would count while reading the same objects as a lean
 * message, and where it would ask the serial filter (JEP 290). A lean message is smaller and
 * differently shaped than the JDK's stream for the same graph, so a filter's limits ({@code maxdepth},
 * {@code maxrefs}, {@code maxbytes}, {@code maxarray}) would otherwise decide differently. The reader
 * reports each step of its decoding; this class replays the JDK's: every value read is one
 * reference and one level deeper ({@code readObject0}); a class descriptor is checked the first
 * time it appears in the message, then each use is a back reference, which is checked with no
 * class; a field's type string used again is a back reference too; each superclass descriptor is
 * one reference and one level deeper; an array is checked with its length; a replacement from
 * readResolve is checked. Bytes are the JDK stream's: its header, tags, descriptors, strings in
 * modified UTF-8, and block-data headers around the primitive data written between objects.
 *
 * <p>Where the lean format cannot know the JDK's bytes exactly, this counts what is knowable: a
 * superclass's codebase annotation is taken to be its subclass's (none for {@code java.*} classes, as
 * the lean writer sends none).
 */
final class JdkFilterModel {

    /** The stream header ({@code STREAM_MAGIC}, {@code STREAM_VERSION}). */
    private static final int STREAM_HEADER = 4;
    private static final int MAX_BLOCK = 1024;
    private static final int SHORT_BLOCK_HEADER = 2;
    private static final int LONG_BLOCK_HEADER = 5;
    private static final int BACK_REFERENCE = 1 + 4;

    /** The JDK lets a filter be set after objects were read (jdk.serialSetFilterAfterRead): always count. */
    private static final boolean FILTER_AFTER_READ = Boolean.getBoolean("jdk.serialSetFilterAfterRead");

    /** RMI's MarshalInputStream reads a codebase annotation, an object, with each class descriptor. */
    private final boolean annotations;
    /**
     * Whether this message's counts may reach a filter: decided at its first object, after which the
     * JDK refuses a filter (and the stream is told, so it refuses as the JDK does). Without a filter
     * then, descriptors are not replayed: no filter will ever ask.
     */
    private boolean counting;
    private boolean decided;
    private ObjectInputStream facade;
    private int message;
    private long references;
    private long depth;
    private long bytes;
    /** Primitive data read since the last object: the JDK frames it in blocks. */
    private long run;
    /** By {@link JdkDescriptor#id}: the message in which the descriptor was read, plus one. */
    private int[] descriptorsRead = new int[64];
    /** By type string number: the message in which the type string was read, plus one. */
    private int[] signaturesRead = new int[64];
    /** Codebase annotations read in this message (the JDK refers back to a string it has read). */
    private final List<String> annotationsRead = new ArrayList<>();
    /** Class hooks running now (nested); while any runs, the stream's filter is {@link #counted}. */
    private int hooks;
    /** The stream's own filter while a hook runs, or null. */
    private ObjectInputFilter real;
    /** The stream's filter as the JDK's own code, called by a hook, reaches it: with this model's counts. */
    private final ObjectInputFilter counted = new ObjectInputFilter() { // a lambda costs a class spun at its first use
        @Override
        public Status checkInput(FilterInfo info) {
            return real.checkInput(new Info(info.serialClass(), info.arrayLength(), depth, references, bytes));
        }
    };

    JdkFilterModel(boolean annotations) {
        this.annotations = annotations;
    }

    /** A new message: the JDK reads each with a new stream, so every count starts again. */
    void begin(ObjectInputStream facade) {
        this.facade = facade;
        message++;
        references = 0;
        depth = 0;
        bytes = STREAM_HEADER;
        run = 0;
        annotationsRead.clear();
        hooks = 0;
        real = null;
        decided = false;
        counting = true;
    }

    /**
     * Primitive data read outside an object's default fields: block data in the JDK's stream, whose
     * reader takes a block's header with its first byte (the block taken to end where reading stops).
     */
    void blockData(long n) {
        long before = run;
        run += n;
        bytes += n + blockHeaders(run) - blockHeaders(before);
    }

    /** A class's default primitive fields, or a primitive array's elements (no block framing). */
    void rawData(long n) {
        if (!counting) {
            return;
        }
        closeRun();
        bytes += n;
    }

    /** A block of a class's custom data starts (the JDK's blocks do not span an object). */
    void blockStarts() {
        run = 0;
    }

    /** An object read where block data or the end of custom data is: the JDK counted a reference first. */
    void optionalDataAhead() {
        if (!counting) {
            return;
        }
        references++;
    }

    /** {@code readObject0}: one more reference, one level deeper, its type code. */
    void enterValue() {
        if (!decided) {
            decide();
        }
        if (!counting) {
            return;
        }
        closeRun();
        references++;
        depth++;
        bytes++;
    }

    void exitValue() {
        if (counting) {
            depth--;
        }
    }

    private void decide() {
        decided = true;
        counting = FILTER_AFTER_READ || facade == null || facade.getObjectInputFilter() != null
                || !JdkSerialClasses.markObjectRead(facade);
    }

    /** A reference to an object read before in the message. */
    void backReference() throws InvalidClassException {
        if (!counting) {
            return;
        }
        bytes += 4;
        check(null, -1);
    }

    void string(String s) {
        if (!counting) {
            return;
        }
        long utf = JdkDescriptor.utfLength(s);
        bytes += (utf <= 0xFFFF ? 2 : 8) + utf;
    }

    /** An enum constant's name, which follows its class descriptor. */
    void enumName(String name) {
        if (!counting) {
            return;
        }
        bytes += 1 + 2 + JdkDescriptor.utfLength(name);
    }

    /** The class descriptor of an object, array, enum or class object, with the peer's codebase annotation. */
    void descriptor(JdkDescriptor descriptor, String annotation) throws InvalidClassException {
        if (!counting) {
            return;
        }
        int id = descriptor.id;
        if (id >= descriptorsRead.length) {
            descriptorsRead = java.util.Arrays.copyOf(descriptorsRead, Math.max(id + 1, 2 * descriptorsRead.length));
        }
        if (descriptorsRead[id] == message) {
            bytes += BACK_REFERENCE;
            check(null, -1);
            return;
        }
        descriptorsRead[id] = message;
        long start = bytes;
        long typeStrings = 0;
        int[] signatures = descriptor.signatures;
        for (int i = 0; i < signatures.length; i++) {
            bytes = start + descriptor.headBytes + descriptor.typeStringAt[i] + typeStrings;
            typeStrings += typeString(signatures[i], descriptor.signatureBytes[i]);
        }
        bytes = start + descriptor.plainBytes + typeStrings;
        if (annotations) {
            annotation(annotation);
        }
        if (descriptor.proxy) {
            for (Class<?> i : descriptor.interfaces) {
                check(i, -1);
            }
        }
        check(descriptor.type, -1);
        bytes++; // TC_ENDBLOCKDATA after the annotation
        references++;
        depth++;
        try {
            JdkDescriptor parent = descriptor.superDescriptor;
            if (parent == null) {
                bytes++; // TC_NULL
            } else {
                descriptor(parent, parent.javaClass ? null : annotation);
            }
        } finally {
            depth--;
        }
    }

    /** A descriptor whose class is not found here: the JDK still asks the filter, with no class. */
    void unresolvedDescriptor() throws InvalidClassException {
        if (!counting) {
            return;
        }
        check(null, -1);
    }

    void arrayLength(Class<?> type, int length) throws InvalidClassException {
        if (!counting) {
            return;
        }
        bytes += 4;
        check(type, length);
    }

    /** The end of what a class's writeObject or writeExternal wrote (what its reader left was read as the JDK skips it). */
    void customDataEnd() {
        if (!counting) {
            return;
        }
        closeRun();
        bytes++; // TC_ENDBLOCKDATA
    }

    /** readResolve gave another object: the JDK asks the filter about it. */
    void replacement(Object rep) throws InvalidClassException {
        if (!counting) {
            return;
        }
        if (rep != null) {
            check(rep.getClass(), rep.getClass().isArray() ? java.lang.reflect.Array.getLength(rep) : -1);
        }
    }

    /** Asks the stream's filter, as {@code ObjectInputStream.filterCheck} does. */
    void check(Class<?> type, long arrayLength) throws InvalidClassException {
        ObjectInputFilter filter = real != null ? real : facade == null ? null : facade.getObjectInputFilter();
        if (filter == null) {
            return;
        }
        ObjectInputFilter.Status status;
        RuntimeException thrown = null;
        try {
            status = filter.checkInput(new Info(type, arrayLength, depth, references, bytes));
        } catch (RuntimeException e) {
            status = ObjectInputFilter.Status.REJECTED;
            thrown = e;
        }
        if (status == null || status == ObjectInputFilter.Status.REJECTED) {
            InvalidClassException e = new InvalidClassException("filter status: " + status);
            e.initCause(thrown);
            throw e;
        }
    }

    /** A field's type string, read anew or as a back reference (checked): returns its bytes. */
    private int typeString(int number, int fresh) throws InvalidClassException {
        if (number >= signaturesRead.length) {
            signaturesRead = java.util.Arrays.copyOf(signaturesRead, Math.max(number + 1, 2 * signaturesRead.length));
        }
        if (signaturesRead[number] == message) {
            bytes += BACK_REFERENCE;
            check(null, -1);
            return BACK_REFERENCE;
        }
        signaturesRead[number] = message;
        return fresh;
    }

    /** RMI's annotation: read as an object (a reference, a level deeper): null, a string, or a string again. */
    private void annotation(String annotation) throws InvalidClassException {
        references++;
        depth++;
        try {
            if (annotation == null) {
                bytes++;
            } else if (annotationsRead.contains(annotation)) {
                bytes += BACK_REFERENCE;
                check(null, -1);
            } else {
                annotationsRead.add(annotation);
                long utf = JdkDescriptor.utfLength(annotation);
                bytes += 1 + (utf <= 0xFFFF ? 2 : 8) + utf;
            }
        } finally {
            depth--;
        }
    }

    private void closeRun() {
        run = 0;
    }

    /** The JDK writes primitive data in blocks of at most 1 KiB, each with a header. */
    private static long blockHeaders(long run) {
        long rest = run % MAX_BLOCK;
        return run / MAX_BLOCK * LONG_BLOCK_HEADER + (rest == 0 ? 0 : rest <= 0xFF ? SHORT_BLOCK_HEADER : LONG_BLOCK_HEADER);
    }

    /**
     * A class's readObject or readExternal starts. The JDK code it may call asks the stream's filter
     * with the stream's own counts ({@code ObjectInputStream.checkArray}, from ArrayList, HashMap and
     * other collections); the facade's counts are not the message's, so its filter is swapped for
     * one that gives this model's until the outermost hook ends.
     */
    void hookStarts() {
        if (hooks++ == 0 && facade != null) {
            real = facade.getObjectInputFilter();
            if (real != null) {
                JdkSerialClasses.swapStreamFilter(facade, counted);
            }
        }
    }

    void hookEnds() {
        if (--hooks == 0 && real != null) {
            JdkSerialClasses.swapStreamFilter(facade, real);
            real = null;
        }
    }

    private record Info(Class<?> serialClass, long arrayLength, long depth, long references, long streamBytes)
            implements ObjectInputFilter.FilterInfo {
    }
}
