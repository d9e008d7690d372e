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
 */
#define _GNU_SOURCE /* syscall */

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

_Static_assert(sizeof(struct fr_doorbell) <= FR_DOORBELL_SIZE, "FR_DOORBELL_SIZE holds the doorbell");

static long fr_futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
	/* Not FUTEX_PRIVATE_FLAG: the word is shared with other processes. */
	return syscall(SYS_futex, (uint32_t *)word, op, val, timeout, NULL, 0);
}

static struct fr_bell_slot *fr_bell_slot(struct fr_doorbell *bell, uint64_t stream_id)
{
	return &bell->slot[stream_id % FR_BELL_SLOTS];
}

static void fr_bell_ring_slot(struct fr_bell_slot *slot)
{
	atomic_thread_fence(memory_order_seq_cst);
	atomic_fetch_add(&slot->seq, 1);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&slot->sleepers) > 0)
		fr_futex(&slot->seq, FUTEX_WAKE, INT_MAX, NULL);
}

void fr_bell_ring(struct fr_doorbell *bell, uint64_t stream_id)
{
	fr_bell_ring_slot(fr_bell_slot(bell, stream_id));
}

void fr_bell_ring_all(struct fr_doorbell *bell)
{
	for (unsigned i = 0; i < FR_BELL_SLOTS; i++)
		if (atomic_load(&bell->slot[i].sleepers) > 0)
			fr_bell_ring_slot(&bell->slot[i]);
}

uint32_t fr_bell_arm(struct fr_doorbell *bell, uint64_t stream_id)
{
	struct fr_bell_slot *slot = fr_bell_slot(bell, stream_id);

	atomic_fetch_add(&slot->sleepers, 1);
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load(&slot->seq);
}

void fr_bell_wait(struct fr_doorbell *bell, uint64_t stream_id, uint32_t armed, int timeout_ms)
{
	struct timespec ts, *tsp = NULL;

	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	/* Returns at once if seq moved since fr_bell_arm read it (EAGAIN); EINTR and ETIMEDOUT
	 * alike send the caller back to look: nothing to report. */
	(void)fr_futex(&fr_bell_slot(bell, stream_id)->seq, FUTEX_WAIT, armed, tsp);
}

void fr_bell_disarm(struct fr_doorbell *bell, uint64_t stream_id)
{
	atomic_fetch_sub(&fr_bell_slot(bell, stream_id)->sleepers, 1);
}
