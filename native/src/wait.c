/*
 * wait.c - the idle strategy of a waiting thread (see wait.h).
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "wait.h"

uint64_t fr_wait_spin_for(struct fr_wait_budget *b, enum fastrmi_wait_mode mode, uint64_t max_nsec, int crowded)
{
	if (mode == FASTRMI_WAIT_BLOCK || max_nsec == 0)
		return 0;
	if (mode == FASTRMI_WAIT_SPIN)
		return max_nsec;
	if (crowded)
		return 0;
	if (!b->learnt)
		return max_nsec;
	if (b->spin_nsec == 0) {
		/* Stopped: try again now and then, the peer may have become quick. */
		if (++b->since_probe < FR_WAIT_PROBE_EVERY)
			return 0;
		b->since_probe = 0;
		return max_nsec;
	}
	return b->spin_nsec < max_nsec ? b->spin_nsec : max_nsec;
}

uint64_t fr_wait_nested_spin_for(struct fr_wait_budget *b, enum fastrmi_wait_mode mode, uint64_t max_nsec,
				 int crowded)
{
	uint64_t nested_max = FR_WAIT_NESTED_SPIN_FACTOR * max_nsec;

	if (mode != FASTRMI_WAIT_ADAPTIVE)
		return fr_wait_spin_for(b, mode, max_nsec, crowded);
	return fr_wait_spin_for(b, mode, nested_max, crowded) > 0 ? nested_max : 0;
}

void fr_wait_learn(struct fr_wait_budget *b, uint64_t max_nsec, uint64_t waited_nsec, int answered_spinning)
{
	uint64_t spin;

	if (answered_spinning) {
		b->typical_nsec = b->typical_nsec == 0 ? waited_nsec : (3 * b->typical_nsec + waited_nsec) / 4;
		spin = FR_WAIT_SPIN_PER_REPLY * b->typical_nsec;
		if (spin < FR_WAIT_MIN_SPIN_NSEC)
			spin = FR_WAIT_MIN_SPIN_NSEC;
		b->spin_nsec = spin < max_nsec ? spin : max_nsec;
		b->misses = 0;
		b->learnt = 1;
		return;
	}
	if (!b->learnt) {
		b->learnt = 1;
		b->spin_nsec = max_nsec;
	}
	if (b->spin_nsec == 0) {
		/* Stopped, yet this reply came soon after all (a wake-up of the peer included):
		 * spinning may pay again, and the peer, stopped too, learns the same: both try. */
		if (waited_nsec < FR_WAIT_SLOW_FACTOR * max_nsec)
			b->since_probe = FR_WAIT_PROBE_EVERY;
		return;
	}
	if (waited_nsec > FR_WAIT_SLOW_FACTOR * max_nsec) {
		/* Far beyond any spin: an idle peer, a call doing real work or calling back. */
		if (++b->misses >= FR_WAIT_MISSES_TO_STOP) {
			b->spin_nsec = 0;
			b->typical_nsec = 0;
			b->since_probe = 0;
		}
		return;
	}
	/* Just past the spin: a wake-up costs more than spinning a little longer. */
	b->misses = 0;
	b->spin_nsec = 2 * b->spin_nsec < max_nsec ? 2 * b->spin_nsec : max_nsec;
}

int fr_wait_crowded_by(const char *loadavg, int cpus)
{
	const char *p = loadavg;
	long running;
	char *end;

	/* "0.52 0.58 0.59 3/467 12345": runnable/total is the fourth field. */
	for (int field = 0; field < 3; field++) {
		while (*p != '\0' && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
	}
	running = strtol(p, &end, 10);
	if (end == p || *end != '/' || cpus <= 0)
		return 0;
	/* The caller counts, and so does the thread it waits for while it spins too: the two ends
	 * of a quiet ping-pong fill two CPUs and are not a crowd. One more runnable thread is: on a
	 * machine whose cores all run other work, a spinner takes a core from a thread that needs it
	 * (loaded null call, 2 busy threads on 2 cores: 22-25 us and p99 84-111 us with this rule,
	 * 29-35 us and p99 3.0-3.7 ms with one more spinner allowed; stock 37 us). */
	return running > cpus;
}

static _Atomic int usable_cpus; /* 0: not known yet */

void fr_wait_set_usable_cpus(int cpus)
{
	atomic_store_explicit(&usable_cpus, cpus > 0 ? cpus : 0, memory_order_relaxed);
}

static int fr_usable_cpus(void)
{
	cpu_set_t set;
	int n = atomic_load_explicit(&usable_cpus, memory_order_relaxed);

	if (n > 0)
		return n;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	else
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	atomic_store_explicit(&usable_cpus, n, memory_order_relaxed);
	return n;
}

int fr_wait_spinners_for(int cpus)
{
	if (cpus < 2)
		return 0; /* the spinner would hold the only core the reply needs */
	return cpus / 2;
}

int fr_wait_spinners_max(void)
{
	return fr_wait_spinners_for(fr_usable_cpus());
}

unsigned fr_wait_crowded_looks(unsigned looks_before, int crowded_now)
{
	return crowded_now ? (looks_before < FR_WAIT_CROWDED_LOOKS ? looks_before + 1 : looks_before) : 0;
}

int fr_wait_foreign_crowd(uint64_t busy_nsec, uint64_t ours_nsec, uint64_t window_nsec, int cpus)
{
	uint64_t foreign_us = (busy_nsec > ours_nsec ? busy_nsec - ours_nsec : 0) / 1000u;

	if (window_nsec < 1000u || cpus <= 0 || (uint64_t)cpus * 1000u <= FR_WAIT_PAIR_MILLICORES)
		return 1; /* nothing known, or no room for a pair beside anything: every crowd counts */
	/* foreign cores > cpus - PAIR / 1000 */
	return foreign_us * 1000u > ((uint64_t)cpus * 1000u - FR_WAIT_PAIR_MILLICORES) * (window_nsec / 1000u);
}

int fr_wait_busy_ticks_by(const char *proc_stat, const void *cpus, uint64_t *ticks)
{
	const cpu_set_t *set = cpus;
	uint64_t sum = 0;
	int summed = 0;

	for (const char *line = proc_stat, *next; line != NULL && *line != '\0'; line = next) {
		const char *q = line + 3, *eol = strchr(line, '\n');
		unsigned long long field[7];
		int fields = 0;
		char *end;

		next = eol != NULL ? eol + 1 : NULL;
		/* Not a CPU's line, or cut short by the read: not summed. */
		if (eol == NULL || strncmp(line, "cpu", 3) != 0)
			continue;
		if (set != NULL) {
			unsigned long cpu;

			if (*q < '0' || *q > '9')
				continue; /* the machine's line */
			cpu = strtoul(q, &end, 10);
			if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, set))
				continue;
			q = end;
		} else if (*q != ' ') {
			continue; /* one CPU's line */
		}
		/* user nice system idle iowait irq softirq, then others */
		for (; fields < 7; fields++) {
			while (*q == ' ')
				q++;
			if (q >= eol || *q < '0' || *q > '9')
				break;
			field[fields] = strtoull(q, &end, 10);
			q = end;
		}
		if (fields < 7)
			continue;
		sum += field[0] + field[1] + field[2] + field[5] + field[6];
		summed++;
	}
	*ticks = sum;
	return summed;
}

/* The peers whose threads are ours (fr_wait_peer_add): pid, its CPU clock, doorbells held. */
static struct {
	uint32_t pid;
	clockid_t clock;
	unsigned held;
} fr_wait_peers[FR_WAIT_PEERS_MAX];
static pthread_mutex_t fr_wait_peers_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned fr_wait_peers_gen; /* moves whenever the peers counted change */

void fr_wait_peer_add(uint32_t pid)
{
	clockid_t clock;
	int free_slot = -1;

	if (pid == 0 || pid > INT_MAX || (pid_t)pid == getpid() || clock_getcpuclockid((pid_t)pid, &clock) != 0)
		return; /* ourselves, or no process we may count: its threads stay others' */
	pthread_mutex_lock(&fr_wait_peers_lock);
	for (int i = 0; i < FR_WAIT_PEERS_MAX; i++) {
		if (fr_wait_peers[i].held > 0 && fr_wait_peers[i].pid == pid) {
			fr_wait_peers[i].held++;
			pthread_mutex_unlock(&fr_wait_peers_lock);
			return;
		}
		if (fr_wait_peers[i].held == 0 && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0) {
		fr_wait_peers[free_slot].pid = pid;
		fr_wait_peers[free_slot].clock = clock;
		fr_wait_peers[free_slot].held = 1;
		fr_wait_peers_gen++;
	}
	pthread_mutex_unlock(&fr_wait_peers_lock);
}

void fr_wait_peer_remove(uint32_t pid)
{
	pthread_mutex_lock(&fr_wait_peers_lock);
	for (int i = 0; i < FR_WAIT_PEERS_MAX; i++) {
		if (fr_wait_peers[i].held > 0 && fr_wait_peers[i].pid == pid) {
			if (--fr_wait_peers[i].held == 0)
				fr_wait_peers_gen++;
			break;
		}
	}
	pthread_mutex_unlock(&fr_wait_peers_lock);
}

static uint64_t fr_wait_clock_nsec(clockid_t clock)
{
	struct timespec ts;

	/* 0 when the clock cannot be read: a peer gone meanwhile (its doorbell not yet let go). */
	if (clock_gettime(clock, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* This process's CPU time and its peers', in ns, and the generation of the peers counted. */
static uint64_t fr_wait_ours_sample(unsigned *gen)
{
	uint64_t ours = fr_wait_clock_nsec(CLOCK_PROCESS_CPUTIME_ID);

	pthread_mutex_lock(&fr_wait_peers_lock);
	for (int i = 0; i < FR_WAIT_PEERS_MAX; i++)
		if (fr_wait_peers[i].held > 0)
			ours += fr_wait_clock_nsec(fr_wait_peers[i].clock);
	*gen = fr_wait_peers_gen;
	pthread_mutex_unlock(&fr_wait_peers_lock);
	return ours;
}

uint64_t fr_wait_ours_nsec(void)
{
	unsigned gen;

	return fr_wait_ours_sample(&gen);
}

int fr_wait_is_jit_thread(const char *comm)
{
	/* HotSpot's "C1 CompilerThread0", "C2 CompilerThread1", "JVMCI CompilerThread0" (cut to
	 * "JVMCI CompilerT"); OpenJ9's "JIT Compilation Thread-000". */
	return strstr(comm, " CompilerT") != NULL || strncmp(comm, "JIT Compilation", 15) == 0;
}

/* The JIT's threads found so far: each one's CPU clock and its time at the last look. */
static struct {
	pid_t tid;
	clockid_t clock;
	uint64_t cpu_nsec;
} fr_wait_jit[FR_WAIT_JIT_THREADS_MAX];
static int fr_wait_jit_count;

/* A thread's CPU clock by its id: Linux's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), as glibc's
 * pthread_getcpuclockid makes it; only a thread of this process may be read so. */
static clockid_t fr_wait_thread_clock(pid_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6u);
}

/* Whether /proc/self/task/NAME is a JIT thread's (its comm read). */
static int fr_wait_task_is_jit(const char *name)
{
	char path[64], comm[32];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "/proc/self/task/%s/comm", name) >= sizeof(path))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone meanwhile */
	n = read(fd, comm, sizeof(comm) - 1);
	(void)close(fd); /* read-only: nothing to lose */
	if (n <= 0)
		return 0;
	comm[n] = '\0';
	return fr_wait_is_jit_thread(comm);
}

/*
 * Adds the JIT threads not known yet among those with an id above above_tid (0: all), each
 * counting from its CPU time now. Returns the highest thread id seen (0: none).
 */
static pid_t fr_wait_jit_scan(pid_t above_tid)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *entry;
	pid_t highest = 0;

	if (dir == NULL)
		return 0; /* no /proc: the JIT stays ours */
	while ((entry = readdir(dir)) != NULL) {
		char *end;
		long tid = strtol(entry->d_name, &end, 10);
		int known = 0;

		if (*end != '\0' || tid <= 0 || tid > INT_MAX)
			continue; /* "." and ".." */
		if ((pid_t)tid > highest)
			highest = (pid_t)tid;
		if ((pid_t)tid <= above_tid || fr_wait_jit_count == FR_WAIT_JIT_THREADS_MAX)
			continue;
		for (int i = 0; i < fr_wait_jit_count && !known; i++)
			known = fr_wait_jit[i].tid == (pid_t)tid;
		if (known || !fr_wait_task_is_jit(entry->d_name))
			continue;
		fr_wait_jit[fr_wait_jit_count].tid = (pid_t)tid;
		fr_wait_jit[fr_wait_jit_count].clock = fr_wait_thread_clock((pid_t)tid);
		fr_wait_jit[fr_wait_jit_count].cpu_nsec = fr_wait_clock_nsec(fr_wait_jit[fr_wait_jit_count].clock);
		fr_wait_jit_count++;
	}
	(void)closedir(dir); /* read-only: nothing to lose */
	return highest;
}

uint64_t fr_wait_jit_nsec_since(uint64_t now_nsec)
{
	static uint64_t scanned_nsec;
	static pid_t scanned_tid;
	static nlink_t scanned_links;
	uint64_t spent = 0;
	struct stat task;

	for (int i = 0; i < fr_wait_jit_count;) {
		uint64_t cpu = fr_wait_clock_nsec(fr_wait_jit[i].clock);

		if (cpu == 0) {
			fr_wait_jit[i] = fr_wait_jit[--fr_wait_jit_count]; /* the thread ended */
			continue;
		}
		if (cpu > fr_wait_jit[i].cpu_nsec)
			spent += cpu - fr_wait_jit[i].cpu_nsec;
		fr_wait_jit[i++].cpu_nsec = cpu;
	}
	if (scanned_nsec == 0 || now_nsec - scanned_nsec >= FR_WAIT_JIT_SCAN_NSEC) {
		/* A thread's name is read once: new threads take higher ids than the last scan saw, until
		 * the ids wrap round (the thread count, the task directory's links less 2, grew with no
		 * higher id: every name is read again). */
		pid_t highest = fr_wait_jit_scan(scanned_tid);

		if (stat("/proc/self/task", &task) == 0) {
			if (scanned_tid != 0 && highest <= scanned_tid && task.st_nlink > scanned_links)
				highest = fr_wait_jit_scan(0);
			scanned_links = task.st_nlink;
		}
		scanned_tid = highest;
		scanned_nsec = now_nsec;
	}
	return spent;
}

/* The CPUs this process could use when the library was loaded: later a thread may pin itself. */
static cpu_set_t fr_wait_load_mask;
static int fr_wait_load_cpus; /* in fr_wait_load_mask; 0: not known */

__attribute__((constructor)) static void fr_wait_note_load_mask(void)
{
	if (sched_getaffinity(0, sizeof(fr_wait_load_mask), &fr_wait_load_mask) == 0)
		fr_wait_load_cpus = CPU_COUNT(&fr_wait_load_mask);
}

/* The busy time of the CPUs of fr_wait_load_mask, in ns; 0 when not known. */
static uint64_t fr_wait_busy_nsec(void)
{
	static char text[16384]; /* a line per CPU: about 200 of them; guarded by the sampler's lock */
	long per_sec = sysconf(_SC_CLK_TCK);
	uint64_t ticks;
	ssize_t n;
	int fd;

	if (per_sec <= 0 || fr_wait_load_cpus == 0)
		return 0;
	fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	(void)close(fd); /* read-only: nothing to lose */
	if (n <= 0)
		return 0;
	text[n] = '\0';
	/* Every CPU of the mask, or the sum is not that of the CPUs we run on. */
	if (fr_wait_busy_ticks_by(text, &fr_wait_load_mask, &ticks) != fr_wait_load_cpus)
		return 0;
	return ticks * (1000000000u / (uint64_t)per_sec);
}

int fr_wait_window_add(struct fr_wait_window *w, uint64_t interval_nsec, uint64_t busy_nsec, uint64_t ours_nsec,
		       int cpus, int *foreign)
{
	w->nsec += interval_nsec;
	w->busy_nsec += busy_nsec;
	w->ours_nsec += ours_nsec;
	if (w->nsec < FR_WAIT_FOREIGN_WINDOW_NSEC)
		return 0;
	*foreign = fr_wait_foreign_crowd(w->busy_nsec, w->ours_nsec, w->nsec, cpus);
	memset(w, 0, sizeof(*w));
	return 1;
}

/*
 * Whether other processes crowd the machine (fr_wait_foreign_crowd), as of the last full window
 * (struct fr_wait_window): sampled by one thread at a time, at every look. 1 until a window is
 * known; the last verdict stands while the next window fills.
 */
static int fr_wait_crowd_is_foreign(uint64_t now_nsec)
{
	static pthread_mutex_t sampler = PTHREAD_MUTEX_INITIALIZER;
	static struct fr_wait_window window;
	static uint64_t looked_nsec, busy_then, ours_then;
	static unsigned gen_then;
	static _Atomic int foreign = 1;
	uint64_t busy, ours, jit;
	unsigned gen;
	int paused, verdict;

	if (pthread_mutex_trylock(&sampler) != 0)
		return atomic_load_explicit(&foreign, memory_order_relaxed);
	paused = looked_nsec == 0 || now_nsec - looked_nsec > FR_WAIT_LOOKS_PAUSED_NSEC;
	busy = fr_wait_busy_nsec();
	ours = fr_wait_ours_sample(&gen);
	jit = fr_wait_jit_nsec_since(now_nsec); /* within ours since the last look, but others' work */
	if (busy == 0 || busy < busy_then) {
		/* /proc/stat not read: a crowd, and what was added so far is no window's. */
		atomic_store_explicit(&foreign, 1, memory_order_relaxed);
		memset(&window, 0, sizeof(window));
	} else if (!paused && busy_then != 0 && gen == gen_then && ours >= ours_then &&
		   fr_wait_window_add(&window, now_nsec - looked_nsec, busy - busy_then,
				      ours - ours_then > jit ? ours - ours_then - jit : 0, fr_wait_load_cpus, &verdict)) {
		atomic_store_explicit(&foreign, verdict, memory_order_relaxed);
	}
	/* Else a pause, or a peer that came or went (its whole life is no interval's): left out. */
	looked_nsec = now_nsec;
	busy_then = busy;
	ours_then = ours;
	gen_then = gen;
	pthread_mutex_unlock(&sampler);
	return atomic_load_explicit(&foreign, memory_order_relaxed);
}

int fr_wait_look_due(uint64_t now_nsec, uint64_t last_nsec, unsigned asks_since)
{
	return last_nsec == 0 || (now_nsec - last_nsec >= FR_WAIT_CROWD_CHECK_NSEC && asks_since >= FR_WAIT_CROWD_CHECK_ASKS);
}

int fr_wait_follows_pause(uint64_t now_nsec, uint64_t last_data_nsec)
{
	return last_data_nsec != 0 && now_nsec - last_data_nsec > FR_WAIT_PAUSE_NSEC;
}

int fr_wait_streaming(uint64_t now_nsec, unsigned sends_in_flight, uint64_t bulk_nsec)
{
	return sends_in_flight > 0 || (bulk_nsec != 0 && now_nsec - bulk_nsec < FR_WAIT_STREAMING_NSEC);
}

/* Waits that asked whether the machine is crowded so far, up to FR_WAIT_COLD_WAITS. */
static _Atomic unsigned waits;

int fr_wait_process_warm(void)
{
	return atomic_load_explicit(&waits, memory_order_relaxed) >= FR_WAIT_COLD_WAITS;
}

int fr_wait_machine_crowded(uint64_t now_nsec)
{
	static _Atomic uint64_t checked_nsec;
	static _Atomic unsigned looks; /* crowded looks in a row */
	static _Atomic unsigned asks;  /* since the last look, up to FR_WAIT_CROWD_CHECK_ASKS */
	uint64_t last = atomic_load_explicit(&checked_nsec, memory_order_relaxed);
	unsigned looks_now, asked;
	int crowded, warm;
	char text[128];
	ssize_t n;
	int fd;

	warm = fr_wait_process_warm();
	if (!warm)
		atomic_fetch_add_explicit(&waits, 1, memory_order_relaxed);
	asked = atomic_load_explicit(&asks, memory_order_relaxed);
	if (asked < FR_WAIT_CROWD_CHECK_ASKS)
		atomic_store_explicit(&asks, ++asked, memory_order_relaxed); /* a lost count only delays a look */
	if (!fr_wait_look_due(now_nsec, last, asked))
		return atomic_load_explicit(&looks, memory_order_relaxed) >= FR_WAIT_CROWDED_LOOKS;
	/* One thread looks; the others keep the last verdict meanwhile. */
	if (!atomic_compare_exchange_strong(&checked_nsec, &last, now_nsec))
		return atomic_load_explicit(&looks, memory_order_relaxed) >= FR_WAIT_CROWDED_LOOKS;
	atomic_store_explicit(&asks, 0, memory_order_relaxed);
	fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* no /proc: never called crowded */
	n = read(fd, text, sizeof(text) - 1);
	(void)close(fd); /* read-only: nothing to lose */
	if (n <= 0)
		return 0;
	text[n] = '\0';
	/* Sampled at every look once warm, so that the window is the last one when a crowd comes. */
	crowded = fr_wait_crowded_by(text, fr_usable_cpus());
	if (warm && !fr_wait_crowd_is_foreign(now_nsec))
		crowded = 0;
	/* Only the looking thread writes looks (checked_nsec above lets one through at a time). */
	looks_now = fr_wait_crowded_looks(atomic_load_explicit(&looks, memory_order_relaxed), crowded);
	atomic_store_explicit(&looks, looks_now, memory_order_relaxed);
	return looks_now >= FR_WAIT_CROWDED_LOOKS;
}

_Static_assert(sizeof(struct fr_wait_budget) <= FASTRMI_WAIT_BUDGET_SIZE, "FASTRMI_WAIT_BUDGET_SIZE too small");
_Static_assert(_Alignof(struct fr_wait_budget) <= 8, "a budget is aligned to 8");

static int fr_wait_mode_known(int mode)
{
	return mode == FASTRMI_WAIT_ADAPTIVE || mode == FASTRMI_WAIT_SPIN || mode == FASTRMI_WAIT_BLOCK;
}

int fr_wait_crowd_is_ours(unsigned streams_asleep, int cpus)
{
	return cpus > 0 && streams_asleep >= (unsigned)cpus;
}

int fr_wait_sleeps_on_pipe(unsigned streams_asleep, uint64_t now_nsec)
{
	/* Ours first: then the machine needs no look (which may read /proc). */
	return !fr_wait_crowd_is_ours(streams_asleep, fr_usable_cpus()) && fr_wait_machine_crowded(now_nsec);
}

int fr_wait_spins_though_crowded_for(int our_cpu, int peer_cpu, unsigned streams_asleep, int cpus)
{
	return our_cpu >= 0 && peer_cpu >= 0 && our_cpu != peer_cpu && !fr_wait_crowd_is_ours(streams_asleep, cpus);
}

int fr_wait_spins_though_crowded(int our_cpu, int peer_cpu, unsigned streams_asleep)
{
	return fr_wait_spins_though_crowded_for(our_cpu, peer_cpu, streams_asleep, fr_usable_cpus());
}

/* Whether adaptive waiting with a spin of max_nsec finds the machine crowded now. */
static int fr_wait_crowded_now(int mode, uint64_t max_nsec)
{
	uint64_t now;

	if (mode != FASTRMI_WAIT_ADAPTIVE || max_nsec == 0 || (now = fr_wait_clock_nsec(CLOCK_MONOTONIC)) == 0)
		return 0;
	return fr_wait_machine_crowded(now);
}

FASTRMI_API uint64_t fastrmi_wait_spin_for(void *budget, int mode, uint64_t max_nsec)
{
	if (budget == NULL || !fr_wait_mode_known(mode))
		return 0;
	return fr_wait_spin_for(budget, (enum fastrmi_wait_mode)mode, max_nsec, fr_wait_crowded_now(mode, max_nsec));
}

FASTRMI_API int fastrmi_wait_may_spin(int mode, uint64_t max_nsec)
{
	if (!fr_wait_mode_known(mode) || mode == FASTRMI_WAIT_BLOCK || max_nsec == 0)
		return 0;
	return !fr_wait_crowded_now(mode, max_nsec);
}

FASTRMI_API void fastrmi_wait_learn(void *budget, uint64_t max_nsec, uint64_t waited_nsec, int answered_spinning)
{
	if (budget != NULL)
		fr_wait_learn(budget, max_nsec, waited_nsec, answered_spinning);
}

FASTRMI_API int fastrmi_wait_spinners_max(int32_t usable_cpus)
{
	if (usable_cpus > 0)
		fr_wait_set_usable_cpus(usable_cpus);
	return fr_wait_spinners_max();
}

uint64_t fr_deputy_sleep_nsec(int someone_polls, uint64_t held_nsec, uint64_t deputy_nsec)
{
	if (!someone_polls || held_nsec <= FR_DEPUTY_SPARSE_NSEC)
		return FR_DEPUTY_NSEC;
	return deputy_nsec > FR_DEPUTY_NSEC ? deputy_nsec : FR_DEPUTY_NSEC;
}

uint64_t fr_deputy_next_nsec(uint64_t deputy_nsec, int found_poller)
{
	if (deputy_nsec < FR_DEPUTY_NSEC)
		return FR_DEPUTY_NSEC;
	if (found_poller && deputy_nsec < FR_DEPUTY_MAX_NSEC)
		return deputy_nsec * 2 < FR_DEPUTY_MAX_NSEC ? deputy_nsec * 2 : FR_DEPUTY_MAX_NSEC;
	return deputy_nsec;
}
