/*
 * doorbell.c - a context's doorbell: futex words in a page shared with its peers, one slot per
 * stream (by id, modulo FR_BELL_SLOTS). A thread that blocks on a stream sleeps on that
 * stream's slot; a peer that sends to the stream rings the slot, so the message wakes the one
 * thread that waits for it, with no thread in between. Two streams that share a slot only wake
 * each other now and then, which costs a look and nothing else.
 *
 * The protocol is an event count: the sleeper counts itself in (sleepers), reads seq, looks
 * for its event once more, then sleeps unless seq moved; the ringer makes its event visible,
 * bumps seq, and wakes only when someone sleeps (full fences between), so a ring costs no
 * system call while the peer is awake.
 *
 * On a crowded machine (more runnable threads than cores) the sleeper sleeps on the slot's
 * pipe instead, one thread per slot at most (piped), and the ringer writes a byte to it. Why: a
 * futex wake-up says nothing of the waker, and beside busy threads the scheduler then often
 * puts a call's two threads on different CPUs, where each wake-up is an interrupt and about
 * three times the CPU (a null RMI call 25-33 us instead of 8-11 here, in a quarter of the runs);
 * a pipe's wake-up is a "sync" one (the waker will sleep soon), which keeps them on one CPU, as
 * the sockets of stock RMI do. On a quiet machine the futex stays: there a sync wake-up pulls
 * the woken thread onto the waker's busy CPU while the other idles (3x slower in a C ping-pong);
 * and where the crowd is the context's own sleeping streams (fr_wait_sleeps_on_pipe).
 * The byte stays in the pipe until drained, so a ring between the sleeper's last look and its
 * poll is not lost; a stale byte costs one more look.
 */
#define _GNU_SOURCE /* syscall */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "wait.h"

_Static_assert(sizeof(struct fr_doorbell) <= FR_DOORBELL_SIZE, "FR_DOORBELL_SIZE holds the doorbell");

static long fr_futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
	/* Not FUTEX_PRIVATE_FLAG: the word is shared with other processes. */
	return syscall(SYS_futex, (uint32_t *)word, op, val, timeout, NULL, 0);
}

static unsigned fr_bell_index(uint64_t stream_id)
{
	return (unsigned)(stream_id % FR_BELL_SLOTS);
}

static struct fr_bell_slot *fr_bell_slot(struct fr_bell *bell, uint64_t stream_id)
{
	return &bell->page->slot[fr_bell_index(stream_id)];
}

struct fr_bell *fr_bell_new(void *page, const char *kind, uint32_t pid, uint32_t number, int own,
			    char *err, size_t errlen)
{
	struct fr_bell *bell = calloc(1, sizeof(*bell));
	int ret;

	if (bell == NULL) {
		fr_seterr(err, errlen, "out of memory for the doorbell of %s-%u-%u", kind, pid, number);
		if (munmap(page, FR_DOORBELL_SIZE) != 0)
			fr_report_errno("munmap(doorbell)", errno);
		return NULL;
	}
	ret = pthread_mutex_init(&bell->pipe_lock, NULL);
	if (ret != 0) {
		fr_seterr(err, errlen, "pthread_mutex_init(doorbell pipes of %s-%u-%u): %s", kind, pid, number,
			  strerror(ret));
		free(bell);
		if (munmap(page, FR_DOORBELL_SIZE) != 0)
			fr_report_errno("munmap(doorbell)", errno);
		return NULL;
	}
	bell->page = page;
	snprintf(bell->kind, sizeof(bell->kind), "%s", kind);
	bell->pid = pid;
	bell->number = number;
	bell->own = own;
	/* A peer's: its threads are ours for the crowd rule (wait.h, "Whose crowd"). */
	if (!own)
		fr_wait_peer_add(pid);
	return bell;
}

/* pipe_lock held. Closes slot i's pipe if one is open here (ours: removes it) and forgets it. */
static void fr_bell_close_pipe(struct fr_bell *bell, unsigned i)
{
	int fd = atomic_load(&bell->pipe[i]) - 1;

	atomic_store(&bell->pipe[i], 0);
	if (fd < 0)
		return;
	if (close(fd) != 0)
		fr_report_errno("close(doorbell pipe)", errno);
	if (bell->own)
		fr_userdir_remove_pipe(bell->kind, bell->number, i);
}

void fr_bell_free(struct fr_bell *bell)
{
	if (bell == NULL)
		return;
	if (!bell->own)
		fr_wait_peer_remove(bell->pid);
	for (unsigned i = 0; i < FR_BELL_SLOTS; i++)
		fr_bell_close_pipe(bell, i);
	fr_report_errno("pthread_mutex_destroy(doorbell pipes)", pthread_mutex_destroy(&bell->pipe_lock));
	if (munmap(bell->page, FR_DOORBELL_SIZE) != 0)
		fr_report_errno("munmap(doorbell)", errno);
	free(bell);
}

void fr_bell_use(struct fr_bell *bell, uint64_t stream_id)
{
	pthread_mutex_lock(&bell->pipe_lock);
	bell->users[fr_bell_index(stream_id)]++;
	pthread_mutex_unlock(&bell->pipe_lock);
}

void fr_bell_unuse(struct fr_bell *bell, uint64_t stream_id)
{
	unsigned i = fr_bell_index(stream_id);

	pthread_mutex_lock(&bell->pipe_lock);
	if (bell->users[i] > 0 && --bell->users[i] == 0)
		fr_bell_close_pipe(bell, i);
	pthread_mutex_unlock(&bell->pipe_lock);
}

/*
 * pipe_lock held. The fd of slot i's pipe, opened (ours: made) on first need; -1 when it cannot
 * be, which is reported once per slot (a peer's: per generation of the pipe): a sleeper then takes
 * the futex, a ringer cannot wake a pipe sleeper (who looks again after FR_BELL_PIPE_LOOK_MS).
 * A peer's pipe of an older generation than the page says is closed and the current one opened.
 */
static int fr_bell_pipe_locked(struct fr_bell *bell, unsigned i)
{
	int cached = atomic_load(&bell->pipe[i]), fd;
	uint32_t gen = 0;
	char err[200];

	if (!bell->own) {
		gen = atomic_load(&bell->page->pipe_gen[i]);
		if (cached != 0 && bell->pipe_gen[i] != gen) {
			fr_bell_close_pipe(bell, i);
			cached = 0;
		}
	}
	if (cached != 0)
		return cached > 0 ? cached - 1 : -1;
	err[0] = '\0';
	if (bell->own) {
		fd = fr_userdir_make_pipe(bell->kind, bell->number, i, err, sizeof(err));
		/* Made anew: ringers holding an older one of this slot open this one. */
		if (fd >= 0)
			atomic_fetch_add(&bell->page->pipe_gen[i], 1);
	} else {
		fd = fr_userdir_open_pipe(bell->kind, bell->pid, bell->number, i, err, sizeof(err));
		bell->pipe_gen[i] = gen;
	}
	if (fd < 0)
		fprintf(stderr, "libfastrmi: doorbell pipe: %s\n", err);
	/* A failure is kept too (-1), not tried again on every ring: till the slot's last stream
	 * closes (ours), or the peer makes the pipe anew (a peer's). */
	atomic_store(&bell->pipe[i], fd >= 0 ? fd + 1 : -1);
	return fd;
}

static void fr_bell_ring_slot(struct fr_bell *bell, unsigned i)
{
	struct fr_bell_slot *slot = &bell->page->slot[i];
	static const char byte = 1;
	int fd;

	atomic_thread_fence(memory_order_seq_cst);
	atomic_fetch_add(&slot->seq, 1);
	atomic_thread_fence(memory_order_seq_cst);
	if ((atomic_load(&slot->sleepers) & FR_BELL_SLEEPERS_MASK) > 0)
		fr_futex(&slot->seq, FUTEX_WAKE, INT_MAX, NULL);
	if (atomic_load(&slot->piped) == 0)
		return;
	pthread_mutex_lock(&bell->pipe_lock);
	/* A full pipe (EAGAIN) has a byte waiting already: the sleeper wakes all the same. */
	if ((fd = fr_bell_pipe_locked(bell, i)) >= 0 && write(fd, &byte, 1) < 0 && errno != EAGAIN)
		fr_report_errno("write(doorbell pipe)", errno);
	/* Rung for a stream of ours that is gone (a send completing after its close): not kept. */
	if (bell->users[i] == 0)
		fr_bell_close_pipe(bell, i);
	pthread_mutex_unlock(&bell->pipe_lock);
}

void fr_bell_ring(struct fr_bell *bell, uint64_t stream_id)
{
	fr_bell_ring_slot(bell, fr_bell_index(stream_id));
}

void fr_bell_ring_all(struct fr_bell *bell)
{
	for (unsigned i = 0; i < FR_BELL_SLOTS; i++)
		if ((atomic_load(&bell->page->slot[i].sleepers) & FR_BELL_SLEEPERS_MASK) > 0 ||
		    atomic_load(&bell->page->slot[i].piped) > 0)
			fr_bell_ring_slot(bell, i);
}

void fr_bell_arm(struct fr_bell *bell, uint64_t stream_id, int on_pipe, struct fr_bell_sleep *sleep)
{
	struct fr_bell_slot *slot = fr_bell_slot(bell, stream_id);
	uint32_t free_pipe = 0;
	int cached;

	sleep->pipe_fd = -1;
	if (on_pipe && atomic_load(&slot->piped) == 0) {
		/* Our own pipe, once made, stays open while a stream of ours uses the slot (the
		 * sleeper's does): no lock, which a thread ringing the slot holds through its write. */
		cached = bell->own ? atomic_load(&bell->pipe[fr_bell_index(stream_id)]) : 0;
		if (cached > 0) {
			sleep->pipe_fd = cached - 1;
		} else {
			pthread_mutex_lock(&bell->pipe_lock);
			sleep->pipe_fd = fr_bell_pipe_locked(bell, fr_bell_index(stream_id));
			pthread_mutex_unlock(&bell->pipe_lock);
		}
		if (sleep->pipe_fd >= 0 && !atomic_compare_exchange_strong(&slot->piped, &free_pipe, 1))
			sleep->pipe_fd = -1; /* another thread of ours sleeps on it: the futex then */
	}
	if (sleep->pipe_fd < 0)
		atomic_fetch_add(&slot->sleepers, 1);
	atomic_thread_fence(memory_order_seq_cst);
	sleep->seq = atomic_load(&slot->seq);
}

static void fr_bell_wait_pipe(struct fr_bell_slot *slot, const struct fr_bell_sleep *sleep, int timeout_ms)
{
	struct pollfd pfd = { .fd = sleep->pipe_fd, .events = POLLIN };
	char bytes[64];
	ssize_t n;

	/* Stale bytes first: a ring after arm bumped seq before its byte, so the look at seq
	 * below still sees it when its byte is drained here. A short read emptied the pipe: one
	 * system call, not a second that says EAGAIN. */
	while ((n = read(sleep->pipe_fd, bytes, sizeof(bytes))) == (ssize_t)sizeof(bytes))
		;
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		fr_report_errno("read(doorbell pipe)", errno);
	if (atomic_load(&slot->seq) != sleep->seq)
		return;
	if (timeout_ms < 0 || timeout_ms > FR_BELL_PIPE_LOOK_MS)
		timeout_ms = FR_BELL_PIPE_LOOK_MS;
	if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR)
		fr_report_errno("poll(doorbell pipe)", errno);
}

void fr_bell_wait(struct fr_bell *bell, uint64_t stream_id, const struct fr_bell_sleep *sleep, int timeout_ms)
{
	struct timespec ts, *tsp = NULL;

	if (sleep->pipe_fd >= 0) {
		fr_bell_wait_pipe(fr_bell_slot(bell, stream_id), sleep, timeout_ms);
		return;
	}
	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	/* Returns at once if seq moved since fr_bell_arm read it (EAGAIN); EINTR and ETIMEDOUT
	 * alike send the caller back to look: nothing to report. */
	(void)fr_futex(&fr_bell_slot(bell, stream_id)->seq, FUTEX_WAIT, sleep->seq, tsp);
}

void fr_bell_disarm(struct fr_bell *bell, uint64_t stream_id, const struct fr_bell_sleep *sleep)
{
	if (sleep->pipe_fd >= 0)
		atomic_store(&fr_bell_slot(bell, stream_id)->piped, 0);
	else
		atomic_fetch_sub(&fr_bell_slot(bell, stream_id)->sleepers, 1);
}

#define FR_BELL_NOTE_TRIES 8

void fr_bell_note_cpu(struct fr_bell *bell, uint64_t stream_id, int cpu)
{
	struct fr_bell_slot *slot = fr_bell_slot(bell, stream_id);
	uint32_t noted = cpu >= 0 && cpu < (int)FR_BELL_SLEEPERS_MASK ? (uint32_t)cpu + 1 : 0;
	uint32_t word = atomic_load_explicit(&slot->sleepers, memory_order_relaxed);

	/* Written only when it changes: the peer reads the word at every ring. The count beside it
	 * moves under us (threads of ours arming and disarming), so compare and swap; a few tries at
	 * most, since peers can write the page too, and a note is only a hint. */
	for (int tries = 0; tries < FR_BELL_NOTE_TRIES && word >> FR_BELL_CPU_SHIFT != noted; tries++)
		if (atomic_compare_exchange_weak_explicit(&slot->sleepers, &word,
							  (word & FR_BELL_SLEEPERS_MASK) | noted << FR_BELL_CPU_SHIFT,
							  memory_order_relaxed, memory_order_relaxed))
			return;
}

int fr_bell_cpu(const struct fr_bell *bell, uint64_t stream_id)
{
	/* The peer's word, any value: only ever compared with a CPU of ours. */
	uint32_t noted = atomic_load_explicit(&bell->page->slot[fr_bell_index(stream_id)].sleepers,
					      memory_order_relaxed) >> FR_BELL_CPU_SHIFT;

	return noted == 0 ? -1 : (int)noted - 1;
}
