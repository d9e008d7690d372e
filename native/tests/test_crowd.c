/*
 * test_crowd.c - whose crowd stops an adaptive spin (wait.h, "Whose crowd"), through the public
 * API: once this process is warm, busy threads of its own make the run queue longer than the
 * CPUs, yet a wait may still spin; as many busy processes that are not its peers make a wait block,
 * and so do as many busy threads of its own named as a JVM's JIT compiler threads.
 * Verdicts are read as they come (the library looks at the machine every 10 ms and judges whose
 * work it was every 100 ms), never timed.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fastrmi.h"
#include "../src/wait.h" /* FR_WAIT_CROWD_CHECK_ASKS: a run of waits, which the library looks at */

#define MAX_SPIN 20000u
#define WARM_ASKS 20000   /* more than the library's cold waits */
#define VERDICT_SEC 3.0   /* how long a verdict may take to come */
#define SETTLE_SEC 0.3    /* two looks in a row and a full window after the crowd starts */
#define MAX_BUSY 17

static atomic_int stop;

static void *busy_thread(void *name)
{
	if (name != NULL)
		(void)pthread_setname_np(pthread_self(), name);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether, once the crowd has settled, some look within VERDICT_SEC gives the verdict wanted. */
static int verdict_comes(int may_spin_wanted)
{
	struct timespec pause = { 0, 5 * 1000 * 1000 };
	double start = now_sec();

	while (now_sec() - start < VERDICT_SEC) {
		int may = 0;

		for (unsigned i = 0; i < FR_WAIT_CROWD_CHECK_ASKS; i++)
			may = fastrmi_wait_may_spin(FASTRMI_WAIT_ADAPTIVE, MAX_SPIN);

		if (now_sec() - start >= SETTLE_SEC && may == may_spin_wanted)
			return 1;
		(void)nanosleep(&pause, NULL);
	}
	return 0;
}

int main(void)
{
	pthread_t threads[MAX_BUSY];
	pid_t children[MAX_BUSY];
	int cpus, busy, started = 0, forked = 0;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0 || (cpus = CPU_COUNT(&set)) < 2 || cpus + 1 > MAX_BUSY) {
		printf("# whose crowd: skipped, needs 2 to %d CPUs\n", MAX_BUSY - 1);
		return check_summary();
	}
	(void)fastrmi_wait_spinners_max(cpus);
	busy = cpus + 1; /* with this thread: more runnable than CPUs at every look */
	for (int i = 0; i < WARM_ASKS; i++)
		(void)fastrmi_wait_may_spin(FASTRMI_WAIT_ADAPTIVE, MAX_SPIN);

	for (; started < busy; started++)
		if (pthread_create(&threads[started], NULL, busy_thread, NULL) != 0)
			break;
	CHECK("busy threads of this process's own", started == busy, "%d of %d started", started, busy);
	CHECK("crowd the run queue, yet a wait may spin: the crowd is ours", verdict_comes(1),
	      "never in %.0f s beside %d busy threads of ours on %d CPUs", VERDICT_SEC, started, cpus);
	atomic_store(&stop, 1);
	for (int i = 0; i < started; i++)
		(void)pthread_join(threads[i], NULL);

	for (; forked < busy; forked++) {
		children[forked] = fork();
		if (children[forked] == 0) {
			for (;;)
				; /* busy until killed */
		}
		if (children[forked] < 0)
			break;
	}
	CHECK("as many busy processes, no peers of ours", forked == busy, "%d of %d forked", forked, busy);
	CHECK("crowd the machine: a wait blocks", verdict_comes(0),
	      "may spin throughout %.0f s beside %d busy processes on %d CPUs", VERDICT_SEC, forked, cpus);
	for (int i = 0; i < forked; i++) {
		(void)kill(children[i], SIGKILL);
		(void)waitpid(children[i], NULL, 0);
	}

	/* A JVM's compiler threads by name: this process's, yet the JIT's work is not the call's. */
	atomic_store(&stop, 0);
	for (started = 0; started < busy; started++)
		if (pthread_create(&threads[started], NULL, busy_thread, "C2 CompilerThre") != 0)
			break;
	CHECK("busy threads named as a JVM's JIT compiler threads", started == busy, "%d of %d started", started,
	      busy);
	CHECK("crowd the machine: a wait blocks, the JIT needs the cores", verdict_comes(0),
	      "may spin throughout %.0f s beside %d busy compiler threads on %d CPUs", VERDICT_SEC, started, cpus);
	atomic_store(&stop, 1);
	for (int i = 0; i < started; i++)
		(void)pthread_join(threads[i], NULL);
	return check_summary();
}
