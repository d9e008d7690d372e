/*
 * test_wait_api.c - the idle strategy as a caller outside the library sees it (FastRMI's Java
 * side, for its TCP sockets): a budget of FASTRMI_WAIT_BUDGET_SIZE zeroed bytes, the modes, the
 * learning that stops a spin, bad arguments, and the spinner count per usable CPUs.
 */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "fastrmi.h"

#define US 1000u
#define MAX (20 * US)

int main(void)
{
	uint64_t budget[FASTRMI_WAIT_BUDGET_SIZE / sizeof(uint64_t)];
	uint64_t spin;

	memset(budget, 0, sizeof(budget));
	CHECK("block never spins", fastrmi_wait_spin_for(budget, FASTRMI_WAIT_BLOCK, MAX) == 0, "spun");
	CHECK("spin spins the whole spin", fastrmi_wait_spin_for(budget, FASTRMI_WAIT_SPIN, MAX) == MAX, "did not");
	CHECK("an unknown mode never spins", fastrmi_wait_spin_for(budget, 7, MAX) == 0, "spun");
	CHECK("a NULL budget never spins", fastrmi_wait_spin_for(NULL, FASTRMI_WAIT_SPIN, MAX) == 0, "spun");
	fastrmi_wait_learn(NULL, MAX, US, 1); /* must not crash */
	CHECK("block may never spin", fastrmi_wait_may_spin(FASTRMI_WAIT_BLOCK, MAX) == 0, "may");
	CHECK("no spin time, no spin", fastrmi_wait_may_spin(FASTRMI_WAIT_SPIN, 0) == 0, "may");
	CHECK("spin may always spin", fastrmi_wait_may_spin(FASTRMI_WAIT_SPIN, MAX) == 1, "may not");
	CHECK("an unknown mode may never spin", fastrmi_wait_may_spin(-1, MAX) == 0, "may");

	/* Whether adaptive spins at first depends on the machine's crowd (this test may run beside
	 * others); never more than the longest spin. */
	spin = fastrmi_wait_spin_for(budget, FASTRMI_WAIT_ADAPTIVE, MAX);
	CHECK("adaptive spins at most the longest spin", spin <= MAX, "%llu ns", (unsigned long long)spin);
	/* Two replies far beyond the spin (a callback, an idle peer) stop it, crowded or not. */
	fastrmi_wait_learn(budget, MAX, 100 * MAX, 0);
	fastrmi_wait_learn(budget, MAX, 100 * MAX, 0);
	spin = fastrmi_wait_spin_for(budget, FASTRMI_WAIT_ADAPTIVE, MAX);
	CHECK("two slow replies stop an adaptive spin", spin == 0, "%llu ns", (unsigned long long)spin);

	CHECK("no spinner on one usable CPU", fastrmi_wait_spinners_max(1) == 0, "%d", fastrmi_wait_spinners_max(1));
	CHECK("one spinner on 2 usable CPUs", fastrmi_wait_spinners_max(2) == 1, "%d", fastrmi_wait_spinners_max(2));
	CHECK("four spinners on 8 usable CPUs", fastrmi_wait_spinners_max(8) == 4, "%d", fastrmi_wait_spinners_max(8));
	CHECK("0 keeps the CPUs last set", fastrmi_wait_spinners_max(0) == 4, "%d", fastrmi_wait_spinners_max(0));
	return check_summary();
}
