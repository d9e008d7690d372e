package io.fastrmi.fastsockets.transport;

import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.NativeLibrary;
import io.fastrmi.fastsockets.nativelib.WaitBudget;

/**
 * Prints what the library's idle strategy answers through the JVM's binding, one {@code CHECK name value} line
 * each: the modes, a budget that learnt two slow replies, the spinners per CPUs. Usage:
 * {@code WaitBudgetMain LIBRARY}.
 */
public final class WaitBudgetMain {

    static final long SPIN = 20_000;

    private WaitBudgetMain() {
    }

    public static void main(String[] args) {
        NativeLibrary library = LibraryMains.load(args[0], WaitBudgetMain.class);
        WaitBudget spin = library.waitBudget(WaitMode.SPIN, SPIN);
        print("spin-may-spin", spin.maySpin());
        print("spin-spins", spin.spinNanos());
        WaitBudget block = library.waitBudget(WaitMode.BLOCK, SPIN);
        print("block-may-spin", block.maySpin());
        print("block-spins", block.spinNanos());
        WaitBudget adaptive = library.waitBudget(WaitMode.ADAPTIVE, SPIN);
        long first = adaptive.spinNanos();
        print("adaptive-first-within-spin", first >= 0 && first <= SPIN);
        adaptive.learn(100 * SPIN, false);
        adaptive.learn(100 * SPIN, false);
        print("adaptive-after-two-slow", adaptive.spinNanos());
        print("spinners-on-1", library.spinnersMax(1));
        print("spinners-on-2", library.spinnersMax(2));
        print("spinners-on-8", library.spinnersMax(8));
    }

    private static void print(String name, Object value) {
        System.out.println("CHECK " + name + " " + value);
    }
}
