package io.fastrmi.agent.nativeit;

/** How the test mains print a call that failed: its exception classes, outermost first, and the time. */
final class Outcomes {

    private Outcomes() {
    }

    /** Prints {@code WORD <exception> / <cause> ... after <ms>}, then the stack trace. */
    static void printFailure(String word, Exception e, long startNanos) {
        StringBuilder chain = new StringBuilder(e.getClass().getName());
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            chain.append(" / ").append(cause.getClass().getName());
        }
        System.out.println(word + " " + chain + " after " + (System.nanoTime() - startNanos) / 1_000_000 + " ms");
        e.printStackTrace(System.out);
    }
}
