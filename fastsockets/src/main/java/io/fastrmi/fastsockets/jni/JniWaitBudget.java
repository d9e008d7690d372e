package io.fastrmi.fastsockets.jni;

import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.WaitBudget;

/** A budget in a Java array the library reads and writes in place, decided and taught by the library. */
final class JniWaitBudget implements WaitBudget {

    private final long[] budget = new long[(int) (NATIVE_SIZE / Long.BYTES)];
    private final int mode;
    private final long maxSpinNanos;

    JniWaitBudget(WaitMode wait, long maxSpinNanos) {
        this.mode = wait.nativeCode();
        this.maxSpinNanos = maxSpinNanos;
    }

    @Override
    public boolean maySpin() {
        return JniCalls.waitMaySpin(mode, maxSpinNanos) != 0;
    }

    @Override
    public long spinNanos() {
        return JniCalls.waitSpinFor(budget, mode, maxSpinNanos);
    }

    @Override
    public void learn(long waitedNanos, boolean answeredSpinning) {
        JniCalls.waitLearn(budget, maxSpinNanos, waitedNanos, answeredSpinning);
    }
}
