package io.fastrmi.optrmi.lean;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Mutated lean streams (bytes flipped, inserted, deleted, repeated, cut) end in a clear checked
 * exception (an IOException naming what was wrong, or ClassNotFoundException naming the class)
 * or read through; never another exception, a crash or a hang. 100,000 inputs here; more with
 * {@code make fuzz-lean} ({@code -Dlean.fuzz.inputs=N}, {@code -Dlean.fuzz.seed=S}).
 * As on any RMI server, an array-size filter bounds what a JDK class's own readObject allocates
 * (HashMap and ArrayList size their tables from a count in the stream).
 */
class LeanFuzzTest {

    private static final int INPUTS = Integer.getInteger("lean.fuzz.inputs", 100_000);
    private static final long SEED = Long.getLong("lean.fuzz.seed", 20261125L);
    private static final ObjectInputFilter FILTER = ObjectInputFilter.Config.createFilter("maxarray=100000");

    /** Connections of a few messages each, every shape of the corpus that is not large. */
    static List<byte[]> seeds() throws IOException {
        List<byte[]> seeds = new ArrayList<>();
        List<Corpus.Shape> shapes = Corpus.shapes().stream()
                .filter(s -> !s.name().contains("64 KiB") && !s.name().contains("1 MiB") && !s.name().contains("5000"))
                .toList();
        for (int i = 0; i < shapes.size(); i++) {
            LeanPipe pipe = new LeanPipe();
            pipe.send(shapes.get(i).make().get(), 17);
            pipe.send(shapes.get((i + 1) % shapes.size()).make().get());
            pipe.send(shapes.get(i).make().get());
            seeds.add(pipe.bytes());
        }
        return seeds;
    }

    @Test
    void mutatedStreamsEndInClearExceptions() throws IOException {
        List<byte[]> seeds = seeds();
        Random random = new Random(SEED);
        int clean = 0;
        int ioExceptions = 0;
        int classNotFound = 0;
        int classesThrew = 0;
        for (int input = 0; input < INPUTS; input++) {
            byte[] mutated = mutate(seeds.get(random.nextInt(seeds.size())), random);
            try {
                readAll(mutated);
                clean++;
            } catch (IOException e) {
                // OptionalDataException says what it met in its fields (eof, length), as the JDK's does.
                if ((e.getMessage() == null || e.getMessage().isBlank()) && !(e instanceof java.io.OptionalDataException)) {
                    throw new AssertionError("an IOException with no message (input " + input + "): " + e + "\n"
                            + HexFormat.of().formatHex(mutated, 0, Math.min(mutated.length, 400)), e);
                }
                ioExceptions++;
            } catch (ClassNotFoundException e) {
                classNotFound++;
            } catch (RuntimeException | Error e) {
                if (!thrownByAClassOrAsTheJdk(e)) {
                    throw new AssertionError("input " + input + " (seed " + SEED + ") ended in " + e + "\n"
                            + HexFormat.of().formatHex(mutated, 0, Math.min(mutated.length, 400)), e);
                }
                classesThrew++;
            } catch (Throwable t) {
                throw new AssertionError("input " + input + " (seed " + SEED + ") ended in " + t + "\n"
                        + HexFormat.of().formatHex(mutated, 0, Math.min(mutated.length, 400)), t);
            }
        }
        System.out.printf("LEAN FUZZ %d inputs: read through %d, IOException %d, ClassNotFoundException %d, a class's own exception %d%n",
                INPUTS, clean, ioExceptions, classNotFound, classesThrew);
        assertTrue(ioExceptions > INPUTS / 4, "most mutations must be caught: " + ioExceptions);
    }

    /**
     * An unchecked exception may end a read only as it ends the JDK's: thrown by a class's own code
     * (its readObject, readExternal, readResolve or constructor, which the JDK's stream passes on as
     * it is), or the JDK's own refusal of a value for a field or an array element, or of default
     * fields or a field read while a class's primitive data is left unread. The reader's own
     * code throws nothing else (a StackOverflowError becomes a StreamCorruptedException).
     */
    private static final String LEAN = "io.fastrmi.optrmi.lean.";
    /** Where the reader calls a class's own code. */
    private static final java.util.Set<String> HOOK_CALLS = java.util.Set.of(
            "JdkSerialClasses.invokeReadObject", "JdkSerialClasses.invokeReadResolve", "JdkSerialClasses.newInstance",
            "LeanReader.readExternal", "LeanReader.readRecord", "Validations.run");

    /** The reader's own code (the corpus's classes share its package). */
    private static boolean readerCode(StackTraceElement frame) {
        return frame.getClassName().startsWith(LEAN) && !frame.getClassName().startsWith(LEAN + "Corpus");
    }

    private static boolean thrownByAClassOrAsTheJdk(Throwable t) {
        if (t instanceof StackOverflowError) {
            return false;
        }
        StackTraceElement[] stack = t.getStackTrace();
        if (stack.length > 0 && !readerCode(stack[0])) {
            for (StackTraceElement frame : stack) {
                if (readerCode(frame)) {
                    return HOOK_CALLS.contains(frame.getClassName().substring(LEAN.length()) + "." + frame.getMethodName());
                }
            }
        }
        if (stack.length > 0 && stack[0].getClassName().equals(LEAN + "LeanGetField")) {
            return t instanceof IllegalArgumentException; // as the JDK's GetField for a field it lacks
        }
        String message = String.valueOf(t.getMessage());
        return t instanceof ClassCastException && (message.startsWith("cannot assign instance of") || message.startsWith("Cannot cast"))
                || t instanceof ArrayStoreException
                || t instanceof IllegalStateException && message.equals("unread block data");
    }

    /** Reads every message of a connection until its bytes run out. */
    private static void readAll(byte[] wire) throws IOException, ClassNotFoundException {
        LeanReader reader = new LeanReader(new ByteArrayInputStream(wire), new ClassLoaderResolver(LeanFuzzTest.class.getClassLoader()));
        for (int message = 0; message < 3; message++) {
            LeanObjectInputStream in = new LeanObjectInputStream(reader);
            in.setObjectInputFilter(FILTER);
            in.readObject();
            in.endMessage();
        }
    }

    static byte[] mutate(byte[] seed, Random random) {
        byte[] b = seed.clone();
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits; e++) {
            if (b.length == 0) {
                return b;
            }
            int at = random.nextInt(b.length);
            switch (random.nextInt(7)) {
                case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
                case 1 -> b[at] = (byte) random.nextInt(256);
                case 2 -> b[at] = (byte) (random.nextBoolean() ? 0xFF : 0x7F);
                case 3 -> { // insert
                    byte[] bigger = new byte[b.length + 1 + random.nextInt(8)];
                    System.arraycopy(b, 0, bigger, 0, at);
                    for (int i = at; i < at + bigger.length - b.length; i++) {
                        bigger[i] = (byte) random.nextInt(256);
                    }
                    System.arraycopy(b, at, bigger, at + bigger.length - b.length, b.length - at);
                    b = bigger;
                }
                case 4 -> { // delete
                    int n = Math.min(b.length - at, 1 + random.nextInt(8));
                    byte[] smaller = new byte[b.length - n];
                    System.arraycopy(b, 0, smaller, 0, at);
                    System.arraycopy(b, at + n, smaller, at, b.length - at - n);
                    b = smaller;
                }
                case 5 -> { // repeat a range
                    int n = Math.min(b.length - at, 1 + random.nextInt(32));
                    byte[] bigger = new byte[b.length + n];
                    System.arraycopy(b, 0, bigger, 0, at + n);
                    System.arraycopy(b, at, bigger, at + n, b.length - at);
                    b = bigger;
                }
                default -> b = Arrays.copyOf(b, at); // cut
            }
        }
        return b;
    }
}
