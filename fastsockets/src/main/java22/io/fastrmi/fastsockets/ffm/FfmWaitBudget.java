package io.fastrmi.fastsockets.ffm;

import io.fastrmi.config.WaitMode;
import io.fastrmi.fastsockets.nativelib.WaitBudget;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A budget in native memory (freed with this object), decided and taught by the library. */
final class FfmWaitBudget implements WaitBudget {

    private final NativeCalls calls;
    private final MemorySegment budget = Arena.ofAuto().allocate(NATIVE_SIZE, 8);
    private final int mode;
    private final long maxSpinNanos;

    FfmWaitBudget(NativeCalls calls, WaitMode wait, long maxSpinNanos) {
        this.calls = calls;
        this.mode = wait.nativeCode();
        this.maxSpinNanos = maxSpinNanos;
    }

    @Override
    public boolean maySpin() {
        try {
            return (int) calls.waitMaySpin.invokeExact(mode, maxSpinNanos) != 0;
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_wait_may_spin", t);
        }
    }

    @Override
    public long spinNanos() {
        try {
            return (long) calls.waitSpinFor.invokeExact(budget, mode, maxSpinNanos);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_wait_spin_for", t);
        }
    }

    @Override
    public void learn(long waitedNanos, boolean answeredSpinning) {
        try {
            calls.waitLearn.invokeExact(budget, maxSpinNanos, waitedNanos, answeredSpinning ? 1 : 0);
        } catch (Throwable t) {
            throw new IllegalStateException("fastrmi_wait_learn", t);
        }
    }
}
