/*
 * wait.h - how long a thread waiting on a stream spins before it blocks (the idle strategy).
 *
 * Spinning answers a reply that comes within microseconds without a wake-up through the
 * kernel, but on a machine with few cores the spinning thread holds the core that the thread
 * it waits for (the server, a callback's handler, the peer JVM) needs. So a stream spins only
 * while spinning pays, as Agrona's BackoffIdleStrategy and adaptive mutexes do:
 *
 *  - for a few times the replies it has seen lately, never more than the config's spin, and
 *    longer after a reply that came just past the spin (a wake-up through the kernel costs
 *    tens of microseconds, more than spinning a little longer);
 *  - not at all after two replies in a row that came far beyond the spin (an idle server, a
 *    call that does real work or calls back), except for one probe every FR_WAIT_PROBE_EVERY
 *    waits, and on the next wait after a reply that came soon after all: a peer that stopped
 *    spinning too is slow to wake, so both would otherwise stay stopped;
 *  - not at all while the machine has more runnable threads than this process may use cores,
 *    the caller counted (a busy node: the spinner would take a core that a thread the machine
 *    runs needs, perhaps the one it waits for), nor when the process may use one CPU
 *    only (taskset, a container's quota): a spin there holds the only core the reply needs;
 *  - and the caller stops a spin early when it wakes another thread of its context (a nested
 *    call: that thread is probably the one the spinner waits for), and lets only
 *    fr_wait_spinners_max threads of a context spin at once (many clients).
 *
 * Pure logic on plain numbers, so that tests reach it without a provider (tests/unit_wait.c).
 */
#ifndef FASTRMI_WAIT_H
#define FASTRMI_WAIT_H

#include <stdint.h>

#include "fastrmi.h" /* enum fastrmi_wait_mode: the config's `wait` */

/* Shortest spin worth starting: a wake-up through the kernel costs about this much. */
#define FR_WAIT_MIN_SPIN_NSEC 2000u
/* The spin is this many times the typical reply that spinning answered. */
#define FR_WAIT_SPIN_PER_REPLY 4u
/* A reply later than this many times the config's spin is slow: spinning could not have met it. */
#define FR_WAIT_SLOW_FACTOR 4u
/* Slow replies in a row before a stream stops spinning. */
#define FR_WAIT_MISSES_TO_STOP 2u
/* A stream that stopped spinning tries once more every this many waits. */
#define FR_WAIT_PROBE_EVERY 64u

/* Per stream and direction; all zero is a valid start (spins once, then learns). */
struct fr_wait_budget {
	uint64_t spin_nsec;   /* the next wait spins this long (0: blocks at once) */
	uint64_t typical_nsec; /* moving average of waits that spinning answered */
	uint32_t misses;      /* waits in a row that outlasted their spin */
	uint32_t since_probe; /* waits since spinning stopped or last probed */
	uint32_t learnt;      /* spin_nsec holds what we learnt (0: nothing yet) */
};

/*
 * How long the next wait of b spins: 0 to block at once. max_nsec is the config's spin;
 * crowded says whether the machine has more runnable threads than we have cores.
 */
uint64_t fr_wait_spin_for(struct fr_wait_budget *b, enum fastrmi_wait_mode mode, uint64_t max_nsec, int crowded);

/*
 * The same for a wait in a nested call (a server's thread waiting for its callback's reply,
 * stream.h): under adaptive waiting it spins FR_WAIT_NESTED_SPIN_FACTOR times the config's spin
 * whenever the budget would spin at all, whatever shorter spin it learnt, and learns with that as
 * its max_nsec. The reply comes after the peer's whole turn (its handler's wake-up, the call, the
 * reply), one wait in a few 20-60 us after a run of short ones: a learnt or default spin ran out
 * just short, the thread slept, and its wake-up made a callback 25-55 us instead of 10-11 on 2
 * cores (3 or 4 pairs in 6; none of 6 with 60 us, which for every wait costs star8 and the JMX
 * scrape, docs/journal.md). Other modes: as fr_wait_spin_for.
 */
#define FR_WAIT_NESTED_SPIN_FACTOR 3u
uint64_t fr_wait_nested_spin_for(struct fr_wait_budget *b, enum fastrmi_wait_mode mode, uint64_t max_nsec,
				 int crowded);

/*
 * Learns from one finished wait: it took waited_nsec; answered_spinning says whether it ended
 * while spinning (else it blocked, at once or after its spin).
 */
void fr_wait_learn(struct fr_wait_budget *b, uint64_t max_nsec, uint64_t waited_nsec, int answered_spinning);

/*
 * Whether the machine is crowded: more runnable threads (the 4th field of /proc/loadavg, the
 * caller among them) than CPUs this process may run on. Looked up at most once per
 * FR_WAIT_CROWD_CHECK_NSEC, process-wide; now_nsec is CLOCK_MONOTONIC.
 */
#define FR_WAIT_CROWD_CHECK_NSEC 10000000u
int fr_wait_machine_crowded(uint64_t now_nsec);

/*
 * A look also waits for this many asks since the last one (process-wide). Waits as sparse as a
 * call every 10 ms cost a crowd little spinning, and each look would sit on their path: reading
 * /proc after a pause of 11 ms took 10 us at the median and 50 at p90 on a 2-core VM, paid by
 * every call on both sides. A run of calls asks thousands of times in FR_WAIT_CROWD_CHECK_NSEC.
 */
#define FR_WAIT_CROWD_CHECK_ASKS 16u
/* Whether a look at the machine is due now (for the tests): last_nsec 0 is none yet. */
int fr_wait_look_due(uint64_t now_nsec, uint64_t last_nsec, unsigned asks_since);

/*
 * A wait for data that starts this long after its stream's last wait for data ended follows a
 * pause (the first of a call after think time): under adaptive waiting it does not spin. The
 * peer's threads slept through the pause and their cores idled deep (halted, or in a VM given
 * back to the host); a spin holds this core, so the peer's wake-up goes to such an idle core,
 * while a waiter that sleeps at once lets the kernel run the peer here (a pipe's or a socket's
 * writer wakes its reader with a sync hint). Java's reads of a fast tcp socket keep the same rule
 * (PollingInput.PAUSE_NANOS).
 */
#define FR_WAIT_PAUSE_NSEC 1000000u
/* Whether a wait starting at now_nsec follows a pause; last_data_nsec 0 is no data yet (no pause). */
int fr_wait_follows_pause(uint64_t now_nsec, uint64_t last_data_nsec);

/*
 * A large write moves in messages, and its two ends take turns: the writer's provider hands the
 * peer what fits its queue and the rest goes out only as the writer polls; the reader takes each
 * message as it comes. A thread that slept there while the data was on its way left the other end
 * waiting for its wake-up, a few times per message (a 1 MiB echo over ucx:shm, stream_pingpong on
 * 2 cores: 5.0 context switches and 860 us a round trip, 0.1 and 400 us with this rule). So a wait
 * spins up to FR_WAIT_STREAMING_NSEC while its stream still has data of its own in flight, or when
 * a message of FR_WAIT_STREAMING_BYTES or more came within that time (its writer is mid-write: the
 * lean format writes arrays in frames of 128 KiB): the rest is coming as fast as the two threads
 * move it. Not on a crowded machine, nor before the process is warm (fr_wait_process_warm: a
 * fresh pair's first 1 MiB echoes took 0.91x stock's time against 0.66x, the JIT's threads
 * needing the cores the spin held); a wait whose transfer ended spins no further than its budget
 * says. Not ofi:shm's: it injects every message, 4 KiB at most, none stays in flight.
 */
#define FR_WAIT_STREAMING_NSEC 500000u
#define FR_WAIT_STREAMING_BYTES (64u * 1024u)
/* Whether a wait at now_nsec is inside a transfer: sends of its own in flight, or a large message came at bulk_nsec (0: none). */
int fr_wait_streaming(uint64_t now_nsec, unsigned sends_in_flight, uint64_t bulk_nsec);

/*
 * The machine is called crowded only after this many looks in a row found it so: a look sees one
 * instant, and a thread that runs for a moment (the JIT, a GC, a timer) must not stop the two ends
 * of a quiet ping-pong from spinning for the next FR_WAIT_CROWD_CHECK_NSEC; a busy machine is
 * crowded at every look.
 */
#define FR_WAIT_CROWDED_LOOKS 2u
/* The count of crowded looks in a row after one more look (for the tests). */
unsigned fr_wait_crowded_looks(unsigned looks_before, int crowded_now);

/*
 * Whose crowd. The run queue counts every runnable thread, and much of it can be this process's
 * and its shared-memory peers' own: a callback's three threads, eight clients of one server, the
 * JIT of either JVM. Such a crowd does not stop a spin: a reply answered by a spin spares those
 * very threads a sleep and a wake-up (star8 on 2 cores: 26 us a call and 5.7 us of CPU, against
 * 50 and 12.2 when this crowd stopped the spins). So once the process is warm, a crowded look
 * counts only while the threads of other processes keep more than all but
 * FR_WAIT_PAIR_MILLICORES / 1000 of the CPUs busy that this process could use when the library
 * was loaded, over the last FR_WAIT_FOREIGN_WINDOW_NSEC of waits (their busy time from /proc/stat, less
 * this process's CPU time and its peers'). Until it is warm (its first FR_WAIT_COLD_WAITS waits,
 * each asks once) every crowd counts: the JIT is compiling the call path, and a spin takes the
 * core it needs (a fresh pair's first 2,000 null calls 1.6x stock's time spinning beside the JIT,
 * 0.63x not).
 */
#define FR_WAIT_COLD_WAITS 10000u
/* Whether this process made its first FR_WAIT_COLD_WAITS waits (the JIT has the call path by then). */
int fr_wait_process_warm(void);
#define FR_WAIT_FOREIGN_WINDOW_NSEC 100000000u
/* Thousandths of a core that a call's two threads need free of other work: two, less the noise of a
 * tick-counted window (0.2 of a core here). */
#define FR_WAIT_PAIR_MILLICORES 1500u
/* Looks (FR_WAIT_CROWD_CHECK_NSEC apart while waits go on) further apart than this: a pause. */
#define FR_WAIT_LOOKS_PAUSED_NSEC (3u * FR_WAIT_CROWD_CHECK_NSEC)
/* Whether other processes' work of busy_nsec less ours_nsec in window_nsec crowds cpus CPUs. */
int fr_wait_foreign_crowd(uint64_t busy_nsec, uint64_t ours_nsec, uint64_t window_nsec, int cpus);
/*
 * The window is made of the intervals between looks while waits go on; an interval that spans a
 * pause is left out (what others ran while we did not wait, the other pairs of a benchmark taken in
 * turn say, tells nothing of the crowd our waits meet), and the window is judged once its intervals
 * add up to FR_WAIT_FOREIGN_WINDOW_NSEC, so that bursts of waits shorter than a window still get a
 * verdict. A window that restarted at every pause never filled in bursts of 20-90 ms (a benchmark's
 * batches of 2,000 callbacks), and the verdict of the warm-up's last window, foreign while other
 * pairs warmed up, stood for the pair's life: no spin, 25-50 us a callback instead of 10.
 */
struct fr_wait_window {
	uint64_t nsec, busy_nsec, ours_nsec; /* the intervals added so far */
};
/*
 * Adds an interval (busy and ours as in fr_wait_foreign_crowd): 1 when that filled the window, its
 * verdict then in *foreign and the window empty again; else 0.
 */
int fr_wait_window_add(struct fr_wait_window *w, uint64_t interval_nsec, uint64_t busy_nsec, uint64_t ours_nsec,
		       int cpus, int *foreign);
/*
 * The busy ticks (user, nice, system, irq, softirq) of the CPUs in cpus, from a /proc/stat text
 * (cpus NULL: the machine's line). Returns the number of CPUs summed: 0 when none could be, and
 * fewer than asked for when a line is missing or cut (then the sum is not the mask's).
 */
int fr_wait_busy_ticks_by(const char *proc_stat, const void *cpus, uint64_t *ticks);

/*
 * The processes whose threads are ours for the crowd: those we hold a doorbell of (a shared-memory
 * peer: same user, same host, same pid namespace). Counted, a pid once per doorbell; at most
 * FR_WAIT_PEERS_MAX at once (more are others). The pid comes from the peer's address, so a lying
 * peer can at most make a crowd look ours: a spin of the config's length, never more.
 */
#define FR_WAIT_PEERS_MAX 64
void fr_wait_peer_add(uint32_t pid);
void fr_wait_peer_remove(uint32_t pid);
/* This process's CPU time and that of its peers, in ns (for the tests). */
uint64_t fr_wait_ours_nsec(void);

/*
 * The JIT is not ours for the crowd. A warm process meets new code too (a job's next phase: the
 * first callbacks after star8's 16,000 echoes), and while its JIT compiles that path a spin takes
 * the core the compiler needs: those callbacks took 172-201 us against stock's 130-165 with the
 * compiler threads counted as ours, 108-135 with every crowd counted (2 cores). So this process's
 * JIT compiler threads, known by their names (fr_wait_is_jit_thread), count as others' work in the
 * window. Looked for in /proc/self/task every FR_WAIT_JIT_SCAN_NSEC (HotSpot starts and stops
 * compiler threads as its queue grows), each thread's name read once, at most
 * FR_WAIT_JIT_THREADS_MAX of them; their CPU time read through their thread clocks at each look.
 * A peer's JIT stays ours: its threads are not ours to list cheaply at every look.
 */
#define FR_WAIT_JIT_SCAN_NSEC 1000000000u
#define FR_WAIT_JIT_THREADS_MAX 32
/* Whether a thread of this name (its comm, at most 15 characters) is a JVM's JIT compiler thread. */
int fr_wait_is_jit_thread(const char *comm);
/*
 * The CPU time this process's JIT threads spent since the last call, in ns (0 at the first, and
 * for a thread first found now); now_nsec is CLOCK_MONOTONIC, for the scan's pace. Not thread-safe:
 * the sampler calls it under its lock (and the tests alone).
 */
uint64_t fr_wait_jit_nsec_since(uint64_t now_nsec);

/*
 * How many threads of one context may spin at once under adaptive waiting: half the CPUs this
 * process may use (one on 2 or 3), none on one CPU. More spinners take the cores the threads
 * they wait for need, and contend for the context's lock.
 */
int fr_wait_spinners_max(void);
/* The same for a number of usable CPUs (for the tests). */
int fr_wait_spinners_for(int cpus);

/*
 * The CPUs this process may use, as the caller knows them (the JVM counts a container's CPU
 * quota too); 0 or less: the library counts those of its CPU affinity mask (the default).
 */
void fr_wait_set_usable_cpus(int cpus);

/*
 * Whether a thread about to sleep on a doorbell sleeps on its slot's pipe (doorbell.c): when the
 * machine is crowded, unless as many of its context's streams as there are usable CPUs fell asleep
 * within FR_WAIT_OWN_CROWD_NSEC (streams_asleep; idle connections' readers, asleep for longer, do
 * not count). Then much of the crowd is ours (many clients of one server, a client's many threads)
 * and the futex spreads their wake-ups over the cores, where the pipe's sync wake-ups would heap
 * them onto the wakers' (star8 0.67-0.69x stock against 0.83-0.88x on 2 cores).
 */
#define FR_WAIT_OWN_CROWD_NSEC 5000000u
int fr_wait_sleeps_on_pipe(unsigned streams_asleep, uint64_t now_nsec);
/* Whether so many streams asleep make the crowd ours, for a number of usable CPUs (for the tests). */
int fr_wait_crowd_is_ours(unsigned streams_asleep, int cpus);

/*
 * Whether a waiter spins though the machine is crowded: when the thread it waits for last ran on
 * another CPU than the waiter's (our_cpu, peer_cpu; -1 not known) and the crowd is not ours (as in
 * fr_wait_sleeps_on_pipe). Beside busy threads the scheduler leaves a call's two threads on one
 * CPU or on two; on two, each sleep costs the other CPU an interrupt to wake it, while a spin
 * takes nothing from the peer: a null RMI call with one busy thread per core on 2 cores, the pair
 * on two CPUs, 36-38 us sleeping and 2.1 spinning (p99 3.2 ms and 5.4 us; stock 45); on one CPU
 * 13 us sleeping and 35 spinning, where the spinner holds the core its peer needs.
 */
int fr_wait_spins_though_crowded(int our_cpu, int peer_cpu, unsigned streams_asleep);
/* The same for a number of usable CPUs (for the tests). */
int fr_wait_spins_though_crowded_for(int our_cpu, int peer_cpu, unsigned streams_asleep, int cpus);

/*
 * The deputy (progress.c, fr_block): on a context without a doorbell, the one thread asleep on its
 * stream's condition that takes the provider's wait object over when nobody polls. It looks after
 * FR_DEPUTY_NSEC at first: the longest a message to a sleeping thread waits when its poller left
 * (a server's thread running a call). Where the last poller slept in the wait object longer than
 * FR_DEPUTY_SPARSE_NSEC (calls with think time between them), it sleeps deputy_nsec instead,
 * which doubles at each look that found a poller, up to FR_DEPUTY_MAX_NSEC, and the poller wakes
 * it as it leaves (fr_wait); its next look comes FR_DEPUTY_NSEC later. So it wakes about twice a
 * call, where its looks doubling again from FR_DEPUTY_NSEC after each call woke an idle
 * connection's reader 4-6 times per call 2-10 ms apart (across hosts, ucx:tcp and ofi:tcp). Calls
 * closer together keep the short looks: a wake-up at every poller's leave would meet the caller's
 * reply on the context's lock (a null call 1.8x as long back to back).
 */
#define FR_DEPUTY_NSEC 500000u
#define FR_DEPUTY_MAX_NSEC 64000000u
#define FR_DEPUTY_SPARSE_NSEC (2u * FR_DEPUTY_NSEC)
/*
 * How long the deputy sleeps: someone_polls, whether a thread is in the wait object now; held_nsec,
 * how long the last thread that slept there did.
 */
uint64_t fr_deputy_sleep_nsec(int someone_polls, uint64_t held_nsec, uint64_t deputy_nsec);
/* deputy_nsec after a wake-up; found_poller: the sleep ran out with a thread in the wait object. */
uint64_t fr_deputy_next_nsec(uint64_t deputy_nsec, int found_poller);

/* The verdict for a /proc/loadavg text and a number of usable CPUs (for the tests). */
int fr_wait_crowded_by(const char *loadavg, int cpus);

#endif /* FASTRMI_WAIT_H */
