/*
 * unit_wait.c - the idle strategy (src/wait.c) on its own: plain numbers in, spin times out.
 * A unit test of one internal module, so it is built from that source, not from the library.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "../src/wait.h"

#define US 1000u
#define MAX (20 * US)

static void test_modes(void)
{
	struct fr_wait_budget b;

	memset(&b, 0, sizeof(b));
	CHECK("block never spins", fr_wait_spin_for(&b, FASTRMI_WAIT_BLOCK, MAX, 0) == 0, "spun");
	CHECK("spin always spins the whole spin, crowded or not",
	      fr_wait_spin_for(&b, FASTRMI_WAIT_SPIN, MAX, 1) == MAX, "did not");
	CHECK("adaptive with spin = 0 never spins", fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, 0, 0) == 0, "spun");
	CHECK("adaptive starts with the whole spin", fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0) == MAX,
	      "did not");
	CHECK("adaptive never spins on a crowded machine", fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 1) == 0,
	      "spun");
}

static void test_quick_replies_shrink_the_spin(void)
{
	struct fr_wait_budget b;
	uint64_t spin;

	memset(&b, 0, sizeof(b));
	for (int i = 0; i < 20; i++) {
		(void)fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
		fr_wait_learn(&b, MAX, 3 * US, 1);
	}
	spin = fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	CHECK("replies of 3 us: the spin becomes a few times that", spin == FR_WAIT_SPIN_PER_REPLY * 3 * US,
	      "spin %llu ns", (unsigned long long)spin);
	for (int i = 0; i < 20; i++)
		fr_wait_learn(&b, MAX, 100, 1);
	spin = fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	CHECK("instant replies: never below the cost of a wake-up", spin == FR_WAIT_MIN_SPIN_NSEC,
	      "spin %llu ns", (unsigned long long)spin);
	fr_wait_learn(&b, MAX, 3 * US, 0);
	spin = fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	CHECK("a reply just past the spin doubles it", spin == 2 * FR_WAIT_MIN_SPIN_NSEC, "spin %llu ns",
	      (unsigned long long)spin);
	for (int i = 0; i < 20; i++)
		fr_wait_learn(&b, MAX, 15 * US, 1);
	spin = fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	CHECK("replies near the limit: the spin is capped by the config's spin", spin == MAX,
	      "spin %llu ns", (unsigned long long)spin);
	for (int i = 0; i < 20; i++)
		fr_wait_learn(&b, MAX, 3 * MAX, 0);
	spin = fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	CHECK("replies a wake-up late (under FR_WAIT_SLOW_FACTOR spins) keep the whole spin", spin == MAX,
	      "spin %llu ns", (unsigned long long)spin);
}

static void test_slow_replies_stop_the_spin(void)
{
	struct fr_wait_budget b;
	int spins = 0, probes_at = -1;

	memset(&b, 0, sizeof(b));
	(void)fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	fr_wait_learn(&b, MAX, 500 * US, 0);
	CHECK("one slow reply does not stop the spin", fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0) > 0,
	      "stopped");
	fr_wait_learn(&b, MAX, 500 * US, 0);
	/* Stopped now: count how often it still spins over the next waits. */
	for (int i = 0; i < (int)FR_WAIT_PROBE_EVERY * 3; i++) {
		uint64_t spin = fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);

		if (spin > 0) {
			spins++;
			if (probes_at < 0)
				probes_at = i;
		}
		fr_wait_learn(&b, MAX, 500 * US, 0);
	}
	CHECK("two slow replies in a row stop the spin, but for one probe every FR_WAIT_PROBE_EVERY waits",
	      spins == 3 && probes_at == (int)FR_WAIT_PROBE_EVERY - 1, "%d spins, first at wait %d", spins,
	      probes_at);
}

static void test_learns_again(void)
{
	struct fr_wait_budget b;
	uint64_t spin;

	memset(&b, 0, sizeof(b));
	for (int i = 0; i < 2; i++) {
		(void)fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
		fr_wait_learn(&b, MAX, 1000 * US, 0);
	}
	spin = fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	/* Blocked at once, and the reply came as soon as a sleeping peer could give it. */
	fr_wait_learn(&b, MAX, 2 * MAX, 0);
	CHECK("a blocked wait that ended soon makes the next wait spin",
	      spin == 0 && fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0) == MAX,
	      "spin before %llu", (unsigned long long)spin);
	fr_wait_learn(&b, MAX, 4 * US, 1);
	spin = fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	CHECK("and an answered spin resumes spinning", spin == FR_WAIT_SPIN_PER_REPLY * 4 * US,
	      "spin %llu ns", (unsigned long long)spin);
}

static void test_nested_waits(void)
{
	const uint64_t nested_max = FR_WAIT_NESTED_SPIN_FACTOR * MAX;
	struct fr_wait_budget b;
	uint64_t spin;

	memset(&b, 0, sizeof(b));
	CHECK("a nested call's first wait spins the nested spin",
	      fr_wait_nested_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0) == nested_max, "did not");
	/* The callback's handler was spinning: its replies came at once, one in a few after a wake-up. */
	for (int i = 0; i < 20; i++) {
		(void)fr_wait_nested_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
		fr_wait_learn(&b, nested_max, 3 * US, 1);
	}
	spin = fr_wait_nested_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	CHECK("short replies do not shorten a nested wait's spin: the next may come after the peer's wake-up",
	      spin == nested_max && fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0) == FR_WAIT_SPIN_PER_REPLY * 3 * US,
	      "nested %llu ns, plain %llu ns", (unsigned long long)spin,
	      (unsigned long long)fr_wait_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0));
	CHECK("nor does a crowded machine let it spin",
	      fr_wait_nested_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 1) == 0, "spun");
	CHECK("wait = spin and wait = block keep the config's spin",
	      fr_wait_nested_spin_for(&b, FASTRMI_WAIT_SPIN, MAX, 0) == MAX &&
		      fr_wait_nested_spin_for(&b, FASTRMI_WAIT_BLOCK, MAX, 0) == 0, "did not");
	/* A callback that does real work: its replies far beyond even the nested spin. */
	for (int i = 0; i < 2; i++) {
		(void)fr_wait_nested_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
		fr_wait_learn(&b, nested_max, FR_WAIT_SLOW_FACTOR * nested_max + US, 0);
	}
	spin = fr_wait_nested_spin_for(&b, FASTRMI_WAIT_ADAPTIVE, MAX, 0);
	CHECK("two replies far beyond the nested spin stop it", spin == 0, "spin %llu ns", (unsigned long long)spin);
}

static void test_crowded_by(void)
{
	cpu_set_t set;

	CHECK("3 runnable on 2 CPUs is crowded (a spinner would take a core others need)",
	      fr_wait_crowded_by("0.52 0.58 0.59 3/467 12345\n", 2), "not");
	CHECK("2 runnable on 2 CPUs, the two ends of a ping-pong, is not",
	      !fr_wait_crowded_by("0.52 0.58 0.59 2/467 12345\n", 2), "is");
	CHECK("one crowded look is not enough, two in a row are, a quiet look starts over",
	      fr_wait_crowded_looks(0, 1) < FR_WAIT_CROWDED_LOOKS &&
		      fr_wait_crowded_looks(fr_wait_crowded_looks(0, 1), 1) >= FR_WAIT_CROWDED_LOOKS &&
		      fr_wait_crowded_looks(FR_WAIT_CROWDED_LOOKS, 0) == 0 &&
		      fr_wait_crowded_looks(FR_WAIT_CROWDED_LOOKS, 1) == FR_WAIT_CROWDED_LOOKS,
	      "counted otherwise");
	CHECK("a wait follows a pause once over 1 ms passed since its stream's last data, never before its first",
	      !fr_wait_follows_pause(5 * FR_WAIT_PAUSE_NSEC, 0) &&
		      !fr_wait_follows_pause(2 * FR_WAIT_PAUSE_NSEC, FR_WAIT_PAUSE_NSEC) &&
		      fr_wait_follows_pause(2 * FR_WAIT_PAUSE_NSEC + 1, FR_WAIT_PAUSE_NSEC),
	      "decided otherwise");
	CHECK("a wait is inside a transfer while its own sends are in flight, or up to 500 us after a large message came",
	      fr_wait_streaming(10 * FR_WAIT_STREAMING_NSEC, 1, 0) && !fr_wait_streaming(10 * FR_WAIT_STREAMING_NSEC, 0, 0) &&
		      fr_wait_streaming(2 * FR_WAIT_STREAMING_NSEC - 1, 0, FR_WAIT_STREAMING_NSEC) &&
		      !fr_wait_streaming(2 * FR_WAIT_STREAMING_NSEC, 0, FR_WAIT_STREAMING_NSEC),
	      "decided otherwise");
	CHECK("the first look is due at once; later ones once the time passed and enough waits asked: sparse waits "
	      "(a call every 10 ms) do not pay a look each",
	      fr_wait_look_due(5, 0, 0) &&
		      !fr_wait_look_due(1000 + FR_WAIT_CROWD_CHECK_NSEC - 1, 1000, FR_WAIT_CROWD_CHECK_ASKS) &&
		      fr_wait_look_due(1000 + FR_WAIT_CROWD_CHECK_NSEC, 1000, FR_WAIT_CROWD_CHECK_ASKS) &&
		      !fr_wait_look_due(1000 + 100 * FR_WAIT_CROWD_CHECK_NSEC, 1000, FR_WAIT_CROWD_CHECK_ASKS - 1),
	      "decided otherwise");
	CHECK("a crowd is ours (a doorbell's sleeper takes the futex, not the pipe) once as many of a context's "
	      "streams as CPUs sleep",
	      !fr_wait_crowd_is_ours(0, 2) && !fr_wait_crowd_is_ours(1, 2) && fr_wait_crowd_is_ours(2, 2) &&
		      fr_wait_crowd_is_ours(7, 2) && !fr_wait_crowd_is_ours(15, 16) && fr_wait_crowd_is_ours(16, 16) &&
		      !fr_wait_crowd_is_ours(9, 0),
	      "decided otherwise");
	fr_wait_set_usable_cpus(2);
	CHECK("so that a sleeper of such a context takes the futex", !fr_wait_sleeps_on_pipe(2, 0), "the pipe");
	fr_wait_set_usable_cpus(0);
	CHECK("on a crowded machine a waiter spins when the thread it waits for runs on another CPU, the crowd "
	      "not ours",
	      fr_wait_spins_though_crowded_for(0, 1, 0, 2) && fr_wait_spins_though_crowded_for(5, 0, 1, 2) &&
		      fr_wait_spins_though_crowded_for(3, 12, 15, 16),
	      "did not");
	CHECK("not on its own CPU, where the spinner holds the core the peer needs, nor where either CPU is not known",
	      !fr_wait_spins_though_crowded_for(1, 1, 0, 2) && !fr_wait_spins_though_crowded_for(-1, 1, 0, 2) &&
		      !fr_wait_spins_though_crowded_for(0, -1, 0, 2) && !fr_wait_spins_though_crowded_for(-1, -1, 0, 2),
	      "did");
	CHECK("nor when the crowd is ours (as many of the context's streams asleep lately as CPUs)",
	      !fr_wait_spins_though_crowded_for(0, 1, 2, 2) && !fr_wait_spins_though_crowded_for(0, 1, 16, 16), "did");
	CHECK("a text without runnable/total is not", !fr_wait_crowded_by("0.52 0.58", 2), "is");
	CHECK("an empty text is not", !fr_wait_crowded_by("", 2), "is");
	CHECK("no CPUs known is not", !fr_wait_crowded_by("0 0 0 9/9 1", 0), "is");
	CHECK("at most half the CPUs' threads of a context spin at once, at least one",
	      fr_wait_spinners_for(16) == 8 && fr_wait_spinners_for(3) == 1 && fr_wait_spinners_for(2) == 1,
	      "%d %d %d", fr_wait_spinners_for(16), fr_wait_spinners_for(3), fr_wait_spinners_for(2));
	CHECK("none on one CPU, where the spinner holds the core the reply needs",
	      fr_wait_spinners_for(1) == 0 && fr_wait_spinners_for(0) == 0, "%d", fr_wait_spinners_for(1));
	fr_wait_set_usable_cpus(1);
	CHECK("the caller's count of usable CPUs counts", fr_wait_spinners_max() == 0, "%d", fr_wait_spinners_max());
	fr_wait_set_usable_cpus(0);
	CHECK("else the library counts the CPUs of this process's affinity mask",
	      sched_getaffinity(0, sizeof(set), &set) == 0 && fr_wait_spinners_max() == fr_wait_spinners_for(CPU_COUNT(&set)),
	      "%d", fr_wait_spinners_max());
	CHECK("this machine's /proc/loadavg can be read", fr_wait_machine_crowded(1) == 0 ||
	      fr_wait_machine_crowded(1) == 1, "bad verdict");
}

#define MS 1000000ull
#define WINDOW (100 * MS)

static void test_foreign_crowd(void)
{
	CHECK("others busy on 1 of 2 CPUs crowd them: a call's two threads need both",
	      fr_wait_foreign_crowd(2 * WINDOW, WINDOW, WINDOW, 2), "not");
	CHECK("all the work ours is no crowd", !fr_wait_foreign_crowd(2 * WINDOW, 2 * WINDOW, WINDOW, 2), "is");
	CHECK("others at 0.4 of a core on 2 CPUs are not (the noise of a window counted in ticks)",
	      !fr_wait_foreign_crowd(WINDOW + 4 * WINDOW / 10, WINDOW, WINDOW, 2), "are");
	CHECK("others at 0.6 of a core on 2 CPUs are", fr_wait_foreign_crowd(WINDOW + 6 * WINDOW / 10, WINDOW, WINDOW, 2),
	      "are not");
	CHECK("on 16 CPUs others may keep 14 busy, not 15",
	      !fr_wait_foreign_crowd(14 * WINDOW, 0, WINDOW, 16) && fr_wait_foreign_crowd(15 * WINDOW, 0, WINDOW, 16),
	      "decided otherwise");
	CHECK("more CPU time of ours than the machine's busy time (ticks against ns) is no crowd",
	      !fr_wait_foreign_crowd(WINDOW, 2 * WINDOW, WINDOW, 2), "is");
	CHECK("on one CPU, with no window, or with no CPUs known, every crowd counts",
	      fr_wait_foreign_crowd(0, 0, WINDOW, 1) && fr_wait_foreign_crowd(0, 0, 0, 2) &&
		      fr_wait_foreign_crowd(0, 0, WINDOW, 0),
	      "one did not");
}

static void test_window_of_bursts(void)
{
	const uint64_t burst = 20000000u; /* 20 ms of waits, then a pause left out */
	struct fr_wait_window w;
	int foreign = -1, judged = 0, bursts = 0;

	memset(&w, 0, sizeof(w));
	/* Others idle while we wait (all the busy time ours), in bursts shorter than a window. */
	while (!judged && bursts < 100) {
		judged = fr_wait_window_add(&w, burst, 2 * burst, 2 * burst, 2, &foreign);
		bursts++;
	}
	CHECK("bursts of waits shorter than a window add up to one and get a verdict",
	      judged && bursts == (int)((FR_WAIT_FOREIGN_WINDOW_NSEC + burst - 1) / burst) && foreign == 0,
	      "judged %d after %d bursts, foreign %d", judged, bursts, foreign);
	for (int i = 0; i < 4; i++)
		CHECK("and the next window starts empty", !fr_wait_window_add(&w, burst, 2 * burst, 0, 2, &foreign),
		      "judged after %d bursts", i + 1);
	CHECK("others busy on a CPU through the next window: foreign",
	      fr_wait_window_add(&w, burst, 2 * burst, 0, 2, &foreign) && foreign == 1, "foreign %d", foreign);
}

static void test_busy_ticks(void)
{
	const char *stat = "cpu  400 0 150 600 3 0 9 1 0 0\n"
			   "cpu0 200 0 70 300 1 0 4 1 0 0\n"
			   "cpu1 200 0 80 300 2 0 5 0 0 0\n"
			   "intr 123 0 0\n";
	cpu_set_t set;
	uint64_t ticks = 7;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	CHECK("the mask's CPUs: user, nice, system, irq and softirq summed",
	      fr_wait_busy_ticks_by(stat, &set, &ticks) == 2 && ticks == 274 + 285, "%llu", (unsigned long long)ticks);
	CPU_CLR(0, &set);
	CHECK("only the mask's", fr_wait_busy_ticks_by(stat, &set, &ticks) == 1 && ticks == 285, "%llu",
	      (unsigned long long)ticks);
	CHECK("NULL: the machine's line", fr_wait_busy_ticks_by(stat, NULL, &ticks) == 1 && ticks == 559, "%llu",
	      (unsigned long long)ticks);
	CPU_SET(0, &set);
	CHECK("a line cut short by the read is not summed",
	      fr_wait_busy_ticks_by("cpu0 200 0 70 300 1 0 4 1 0 0\ncpu1 200 0 80 30", &set, &ticks) == 1 &&
		      ticks == 274,
	      "%llu", (unsigned long long)ticks);
	CHECK("nor one of fewer than seven fields",
	      fr_wait_busy_ticks_by("cpu0 200 0 70 300 1 0\ncpu1 1 2 3 x 5 6 7\n", &set, &ticks) == 0 && ticks == 0,
	      "%llu", (unsigned long long)ticks);
	CHECK("nor a CPU beyond any mask, nor other text",
	      fr_wait_busy_ticks_by("cpu99999999999999999999 1 1 1 1 1 1 1\ncpux 1 1 1 1 1 1 1\n\n", &set, &ticks) == 0,
	      "%llu", (unsigned long long)ticks);
	CHECK("an empty text sums none", fr_wait_busy_ticks_by("", NULL, &ticks) == 0, "summed");
	{
		char text[16384];
		FILE *f = fopen("/proc/stat", "r");
		size_t n = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0;

		if (f != NULL)
			fclose(f);
		text[n] = '\0';
		CHECK("this machine's /proc/stat has a line for each CPU of this process's mask",
		      sched_getaffinity(0, sizeof(set), &set) == 0 &&
			      fr_wait_busy_ticks_by(text, &set, &ticks) == CPU_COUNT(&set),
		      "%d of %d", fr_wait_busy_ticks_by(text, &set, &ticks), CPU_COUNT(&set));
	}
}

static uint64_t cpu_clock_nsec(clockid_t clock)
{
	struct timespec ts;

	return clock_gettime(clock, &ts) == 0 ? (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec : 0;
}

/* fr_wait_ours_nsec lies between this process's and the child's CPU times read just before and after. */
static int ours_between(clockid_t child, int child_counted)
{
	uint64_t self0 = cpu_clock_nsec(CLOCK_PROCESS_CPUTIME_ID), child0 = cpu_clock_nsec(child);
	uint64_t ours = fr_wait_ours_nsec();
	uint64_t child1 = cpu_clock_nsec(child), self1 = cpu_clock_nsec(CLOCK_PROCESS_CPUTIME_ID);

	return child_counted ? self0 + child0 <= ours && ours <= self1 + child1 : self0 <= ours && ours <= self1;
}

static void test_peers_are_ours(void)
{
	struct timespec busy = { 0, 50 * 1000 * 1000 };
	clockid_t child_clock;
	pid_t child = fork();

	if (child == 0) {
		for (;;)
			; /* busy until killed */
	}
	CHECK("a busy child to count", child > 0 && clock_getcpuclockid(child, &child_clock) == 0, "fork failed");
	if (child <= 0)
		return;
	(void)nanosleep(&busy, NULL);
	CHECK("a process that is no peer is not ours", ours_between(child_clock, 0), "counted");
	fr_wait_peer_add((uint32_t)child);
	fr_wait_peer_add((uint32_t)child); /* a second doorbell of the same peer */
	CHECK("a peer's CPU time is ours", ours_between(child_clock, 1), "not counted");
	fr_wait_peer_remove((uint32_t)child);
	CHECK("counted once, while any of its doorbells is held", ours_between(child_clock, 1), "not counted");
	fr_wait_peer_remove((uint32_t)child);
	CHECK("not once all are let go", ours_between(child_clock, 0), "counted");
	fr_wait_peer_add((uint32_t)getpid());
	fr_wait_peer_add(0);
	CHECK("this process (or pid 0) is never counted twice", ours_between(child_clock, 0), "counted");
	fr_wait_peer_remove((uint32_t)getpid());
	(void)kill(child, SIGKILL);
	(void)waitpid(child, NULL, 0);
}

static atomic_int jit_stop;

/* A busy thread under the name given (a JIT compiler thread's, or not). */
static void *busy_named(void *name)
{
	(void)pthread_setname_np(pthread_self(), name);
	while (!atomic_load_explicit(&jit_stop, memory_order_relaxed))
		;
	return NULL;
}

static uint64_t thread_cpu_nsec(pthread_t thread)
{
	clockid_t clock;

	return pthread_getcpuclockid(thread, &clock) == 0 ? cpu_clock_nsec(clock) : 0;
}

static uint64_t monotonic_nsec(void)
{
	return cpu_clock_nsec(CLOCK_MONOTONIC);
}

static void test_jit_threads(void)
{
	struct timespec busy = { 0, 50 * 1000 * 1000 };
	pthread_t jit, other, late;
	/* Looks from a time past any scan's pace, so that the first one scans. */
	uint64_t jit0, jit1, other0, other1, spent, now = monotonic_nsec() + 2 * (uint64_t)FR_WAIT_JIT_SCAN_NSEC;

	CHECK("HotSpot's C1 and C2 compiler threads are the JIT's",
	      fr_wait_is_jit_thread("C1 CompilerThre") && fr_wait_is_jit_thread("C2 CompilerThre"), "not");
	CHECK("so are JVMCI's and OpenJ9's",
	      fr_wait_is_jit_thread("JVMCI CompilerT") && fr_wait_is_jit_thread("JIT Compilation"), "not");
	CHECK("an RMI connection's thread, the GC and a name with Compiler in it are not",
	      !fr_wait_is_jit_thread("RMI TCP Connect") && !fr_wait_is_jit_thread("GC Thread#0") &&
		      !fr_wait_is_jit_thread("CompilerT") && !fr_wait_is_jit_thread(""),
	      "one was");
	if (pthread_create(&jit, NULL, busy_named, "C2 CompilerThre") != 0 ||
	    pthread_create(&other, NULL, busy_named, "busy worker") != 0) {
		CHECK("two busy threads to count", 0, "pthread_create failed");
		return;
	}
	(void)nanosleep(&busy, NULL); /* both named and running */
	CHECK("the first look counts nothing yet", fr_wait_jit_nsec_since(now) == 0, "counted");
	jit0 = thread_cpu_nsec(jit);
	other0 = thread_cpu_nsec(other);
	(void)nanosleep(&busy, NULL);
	jit1 = thread_cpu_nsec(jit);
	spent = fr_wait_jit_nsec_since(now + 1);
	other1 = thread_cpu_nsec(other);
	CHECK("a busy compiler thread's CPU time is counted, the other busy thread's not",
	      spent >= jit1 - jit0 && spent < jit1 - jit0 + (other1 - other0) / 2,
	      "%llu ns counted; the compiler thread ran %llu, the other %llu", (unsigned long long)spent,
	      (unsigned long long)(jit1 - jit0), (unsigned long long)(other1 - other0));

	if (pthread_create(&late, NULL, busy_named, "C1 CompilerThre") != 0) {
		CHECK("a compiler thread started later", 0, "pthread_create failed");
		return;
	}
	(void)nanosleep(&busy, NULL);
	jit0 = thread_cpu_nsec(jit);
	(void)fr_wait_jit_nsec_since(now + 2);
	(void)nanosleep(&busy, NULL);
	spent = fr_wait_jit_nsec_since(now + 3);
	jit1 = thread_cpu_nsec(jit);
	CHECK("a compiler thread started since is not looked for before the scan's pace",
	      spent <= jit1 - jit0, "%llu ns counted, the first compiler thread ran %llu", (unsigned long long)spent,
	      (unsigned long long)(jit1 - jit0));
	(void)fr_wait_jit_nsec_since(now + 3 + FR_WAIT_JIT_SCAN_NSEC);
	jit0 = thread_cpu_nsec(jit);
	other0 = thread_cpu_nsec(late);
	(void)nanosleep(&busy, NULL);
	jit1 = thread_cpu_nsec(jit);
	other1 = thread_cpu_nsec(late);
	spent = fr_wait_jit_nsec_since(now + 4 + FR_WAIT_JIT_SCAN_NSEC);
	CHECK("but at the next scan",
	      spent > jit1 - jit0 && other1 - other0 > 0, "%llu ns counted, the first compiler thread ran %llu",
	      (unsigned long long)spent, (unsigned long long)(jit1 - jit0));

	atomic_store(&jit_stop, 1);
	(void)pthread_join(jit, NULL);
	(void)pthread_join(other, NULL);
	(void)pthread_join(late, NULL);
	(void)fr_wait_jit_nsec_since(now + 5 + FR_WAIT_JIT_SCAN_NSEC);
	CHECK("ended threads are let go and count nothing more",
	      fr_wait_jit_nsec_since(now + 6 + FR_WAIT_JIT_SCAN_NSEC) == 0, "counted");
}

static void test_deputy(void)
{
	uint64_t nsec = FR_DEPUTY_NSEC;

	CHECK("the deputy looks soon while nobody polls",
	      fr_deputy_sleep_nsec(0, 10 * FR_DEPUTY_SPARSE_NSEC, FR_DEPUTY_MAX_NSEC) == FR_DEPUTY_NSEC, "did not");
	CHECK("and while pollers sleep there briefly (calls back to back)",
	      fr_deputy_sleep_nsec(1, FR_DEPUTY_SPARSE_NSEC, FR_DEPUTY_MAX_NSEC) == FR_DEPUTY_NSEC, "did not");
	for (int i = 0; i < 20; i++)
		nsec = fr_deputy_next_nsec(nsec, 1);
	CHECK("looks that found a poller double the sleep up to the longest", nsec == FR_DEPUTY_MAX_NSEC,
	      "did not");
	CHECK("a poller that slept long in the wait object (think time) lets it sleep that long",
	      fr_deputy_sleep_nsec(1, FR_DEPUTY_SPARSE_NSEC + 1, nsec) == FR_DEPUTY_MAX_NSEC, "did not");
	CHECK("a look that found the wait object free keeps the sleep for the next poller",
	      fr_deputy_next_nsec(nsec, 0) == FR_DEPUTY_MAX_NSEC, "did not");
	CHECK("a zero sleep becomes the short look", fr_deputy_next_nsec(0, 0) == FR_DEPUTY_NSEC, "did not");
}

int main(void)
{
	test_modes();
	test_quick_replies_shrink_the_spin();
	test_slow_replies_stop_the_spin();
	test_learns_again();
	test_nested_waits();
	test_crowded_by();
	test_foreign_crowd();
	test_window_of_bursts();
	test_busy_ticks();
	test_peers_are_ours();
	test_jit_threads();
	test_deputy();
	return check_summary();
}
