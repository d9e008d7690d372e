/*
 * progress.c - progress and waiting: polling the provider, and how a thread waits for its
 * stream (spinning while it pays, wait.h; then on the doorbell or the provider's wait object).
 * Described in stream.c.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "stream.h"

/* ---- progress and waiting ----------------------------------------------------------- */

/* Polls the provider once; <0 when the context broke (message in err). */
int fr_progress(struct fastrmi_ctx *ctx, char *err, size_t errlen)
{
	int n;

	if (ctx->failed) {
		fr_seterr(err, errlen, "%s", ctx->fail_msg);
		return FASTRMI_ERR_PROVIDER;
	}
	ctx->wait_counts.provider_polls++;
	n = ctx->be->progress(ctx, ctx->fail_msg, sizeof(ctx->fail_msg));
	if (n < 0) {
		ctx->failed = 1;
		fr_seterr(err, errlen, "%s", ctx->fail_msg);
		fr_wake_all(ctx);
		return FASTRMI_ERR_PROVIDER;
	}
	if (ctx->pending != NULL)
		fr_flush_pending(ctx);
	if (ctx->orphans != NULL)
		fr_expire_orphans(ctx);
	if (n > 0) {
		ctx->busy_block_ms = 0;
		ctx->busy_arms = 0;
		if (ctx->eagain) {
			ctx->eagain = 0;
			fr_wake_tx_waiters(ctx);
		}
	}
	return 0;
}

/*
 * Blocks until something may have happened (lock held on entry and return). On a context without
 * a doorbell every message wakes whichever thread sleeps in the provider's wait object (an fd),
 * so that thread should be the one the next message is for. A
 * thread takes the wait object (becomes the poller) only when no other thread polls, neither the
 * poller nor one spinning; otherwise it sleeps on its stream's condition variable, woken by
 * whoever delivers to it. A thread whose connection is idle thus sleeps through the other
 * streams' traffic, where it would wake for every message in the wait object.
 *
 * A poller woken for another thread's message leaves the wait object to that thread when that
 * thread's next message is likely to come before its own (fr_leaves_poll), and sleeps on its
 * condition.
 *
 * When the poller or the last spinner leaves with its data, nobody polls for those asleep on
 * conditions: one of them, the deputy, sleeps only FR_DEPUTY_NSEC and then takes the wait object
 * over if it is still free. The thread that left usually waits again sooner (the next call). While
 * someone polls the deputy looks ever less often, up to FR_DEPUTY_MAX_NSEC, and is woken when the
 * poller leaves (fr_wait); its next look then comes after FR_DEPUTY_NSEC (wait.h has the rule).
 *
 * While the provider said "busy, try again" or messages of ours are in flight, the
 * poller sleeps only briefly (1 ms, doubling up to FR_BUSY_BLOCK_MAX_MS while nothing
 * happens): a peer does not wake us when it frees room in a full queue (shm, UCX posix
 * FIFOs) or takes a large message of ours, so we look again. An idle context has
 * neither and sleeps until woken.
 */
static void fr_sleeping_add(struct fastrmi_stream *s, uint64_t now)
{
	struct fastrmi_ctx *ctx = s->ctx;

	if (s->sleepers++ == 0) {
		s->asleep_since = now;
		s->prev_sleeping = NULL;
		s->next_sleeping = ctx->sleeping;
		if (ctx->sleeping != NULL)
			ctx->sleeping->prev_sleeping = s;
		ctx->sleeping = s;
	}
}

static void fr_sleeping_remove(struct fastrmi_stream *s)
{
	struct fastrmi_ctx *ctx = s->ctx;

	if (--s->sleepers == 0) {
		if (s->prev_sleeping != NULL)
			s->prev_sleeping->next_sleeping = s->next_sleeping;
		else
			ctx->sleeping = s->next_sleeping;
		if (s->next_sleeping != NULL)
			s->next_sleeping->prev_sleeping = s->prev_sleeping;
	}
}

/*
 * How many of the context's streams fell asleep within FR_WAIT_OWN_CROWD_NSEC: busy streams, not
 * the readers of idle connections (a server's pooled ones sleep for seconds). The list is newest
 * first, so the count stops at the first older one.
 */
static unsigned fr_streams_asleep_lately(const struct fastrmi_ctx *ctx, uint64_t now)
{
	unsigned n = 0;

	for (const struct fastrmi_stream *s = ctx->sleeping; s != NULL && now - s->asleep_since < FR_WAIT_OWN_CROWD_NSEC;
	     s = s->next_sleeping)
		n++;
	return n;
}

/*
 * A context with a doorbell: the thread sleeps on its stream's slot, which the peer rings when
 * it sends to the stream (and this process when it delivered, aborted or freed something the
 * stream waits for): one wake-up, straight to this thread. Lock held on entry and return.
 */
static void fr_block_on_bell(struct fastrmi_stream *s, fr_ready_fn ready, int timeout_ms)
{
	struct fastrmi_ctx *ctx = s->ctx;
	struct fr_bell_sleep sleep;
	uint64_t now;
	int on_pipe;

	/* A backend that cannot ring for everything it does on its own (UCX) looks now and then. */
	if (ctx->bell_look_ms > 0 && (timeout_ms < 0 || timeout_ms > ctx->bell_look_ms))
		timeout_ms = ctx->bell_look_ms;
	/* Crowded by others: on the slot's pipe, whose sync wake-up keeps a call's threads on one CPU (doorbell.c). */
	now = fr_now_nsec();
	on_pipe = fr_wait_sleeps_on_pipe(fr_streams_asleep_lately(ctx, now), now);
	fr_sleeping_add(s, now);
	fr_bell_arm(ctx->bell, s->local_id, on_pipe, &sleep);
	/* What was sent before the peer saw us counted in is in the queue now: look once more. */
	if (fr_progress(ctx, NULL, 0) == 0 && !ready(s) && !s->aborted && !s->failed) {
		pthread_mutex_unlock(&ctx->lock);
		fr_bell_wait(ctx->bell, s->local_id, &sleep, timeout_ms);
		/* Awake: counted out before waiting for the lock (which may take a while on a busy
		 * context), so that rings meanwhile cost the ringers no system call. The CPU we
		 * woke on is where the peer's next wait finds us (fr_spins_beside_crowd). */
		fr_bell_disarm(ctx->bell, s->local_id, &sleep);
		fr_bell_note_cpu(ctx->bell, s->local_id, sched_getcpu());
		pthread_mutex_lock(&ctx->lock);
	} else {
		fr_bell_disarm(ctx->bell, s->local_id, &sleep);
	}
	fr_sleeping_remove(s);
}

/* The poller's wait: in the provider's wait object, without the lock. */
static void fr_block_in_provider(struct fastrmi_stream *s, int timeout_ms)
{
	struct fastrmi_ctx *ctx = s->ctx;
	char msg[200];
	uint64_t slept_from = 0;
	int ret;

	msg[0] = '\0';
	ctx->poller = 1;
	ctx->poller_stream = s;
	ret = ctx->be->arm(ctx, msg, sizeof(msg));
	if (ret < 0) {
		ctx->poller = 0;
		ctx->failed = 1;
		snprintf(ctx->fail_msg, sizeof(ctx->fail_msg), "%s", fr_text(msg));
		fr_wake_all(ctx);
		return;
	}
	/* A provider that keeps saying "busy" without delivering anything (UCX
	 * checking on a dead peer) gets short sleeps instead of a busy loop. */
	ctx->busy_arms = ret == 1 ? ctx->busy_arms + 1 : 0;
	if (ret == 0 || ctx->busy_arms > FR_BUSY_ARMS_MAX) {
		if (ret == 1 && (timeout_ms < 0 || timeout_ms > 1))
			timeout_ms = 1;
		pthread_mutex_unlock(&ctx->lock);
		slept_from = fr_now_nsec();
		ctx->be->block(ctx, timeout_ms);
		pthread_mutex_lock(&ctx->lock);
	}
	ctx->be->disarm(ctx);
	ctx->poller = 0;
	ctx->poller_stream = NULL;
	ctx->eagain = 0;
	ctx->free_since = fr_now_nsec();
	if (slept_from != 0)
		ctx->held_nsec = ctx->free_since - slept_from;
}

/* Sleeps on the stream's condition until deadline (ns, or FR_FOREVER), lock held. */
static int fr_cond_wait_until(struct fastrmi_stream *s, uint64_t deadline)
{
	struct timespec ts;

	if (deadline == FR_FOREVER)
		return pthread_cond_wait(&s->cond, &s->ctx->lock);
	ts.tv_sec = (time_t)(deadline / 1000000000u);
	ts.tv_nsec = (long)(deadline % 1000000000u);
	return pthread_cond_timedwait(&s->cond, &s->ctx->lock, &ts);
}

/* A sleeper's wait while another thread polls: on its stream's condition (see fr_block), until
 * deadline or the deputy's look. What the thread may do next: FR_POLL_IF_LONG_FREE after a look. */
static enum fr_may_poll fr_block_on_cond(struct fastrmi_stream *s, uint64_t deadline, uint64_t now)
{
	struct fastrmi_ctx *ctx = s->ctx;
	int deputy = ctx->deputy == NULL;
	uint64_t until = deadline, nsec;
	int ret;

	if (deputy) {
		ctx->deputy = s;
		nsec = fr_deputy_sleep_nsec(ctx->poller, ctx->held_nsec, ctx->deputy_nsec);
		/* Longer than the short look: the poller owes it a wake-up when it leaves (fr_wait). */
		ctx->deputy_sleeps_long = nsec > FR_DEPUTY_NSEC;
		if (now + nsec < until)
			until = now + nsec;
	}
	fr_sleeping_add(s, now);
	ret = fr_cond_wait_until(s, until);
	fr_sleeping_remove(s);
	if (!deputy)
		return FR_MAY_POLL;
	ctx->deputy = NULL;
	ctx->deputy_sleeps_long = 0;
	if (ret == ETIMEDOUT)
		ctx->wait_counts.deputy_looks++;
	ctx->deputy_nsec = fr_deputy_next_nsec(ctx->deputy_nsec, ret == ETIMEDOUT && ctx->poller);
	return ret == ETIMEDOUT ? FR_POLL_IF_LONG_FREE : FR_MAY_POLL;
}

/* Whether a thread may take the provider's wait object now (see fr_block). */
static int fr_may_take_poll(struct fastrmi_stream *s, enum fr_may_poll may_poll, uint64_t now)
{
	struct fastrmi_ctx *ctx = s->ctx;

	if (ctx->poller || ctx->spinners > 0 || may_poll == FR_LEAVE_POLL || may_poll == FR_POLLED)
		return 0;
	if (ctx->deputy_wanted == s) {
		ctx->deputy_wanted = NULL;
		return 0;
	}
	/* A thread between two of its calls leaves it free for a moment: no reason to take it. */
	return may_poll == FR_MAY_POLL || now - ctx->free_since >= FR_DEPUTY_NSEC / 2;
}

enum fr_may_poll fr_block(struct fastrmi_stream *s, fr_ready_fn ready, uint64_t deadline,
			  enum fr_may_poll may_poll)
{
	struct fastrmi_ctx *ctx = s->ctx;
	uint64_t now = fr_now_nsec();
	int timeout_ms = -1;

	/* Asleep on a condition, whoever polls wakes it; the deputy looks in time (see above). */
	if (ctx->bell == NULL && !fr_may_take_poll(s, may_poll, now))
		return fr_block_on_cond(s, deadline, now);
	/* The caller checked the deadline a moment ago; it may have passed since. Unsigned
	 * deadline - now would wrap to a huge value, and its int a negative "forever". */
	if (deadline != FR_FOREVER)
		timeout_ms = now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
	if (ctx->eagain || ctx->tx_inflight > 0) {
		if (ctx->busy_block_ms == 0)
			ctx->busy_block_ms = 1;
		if (timeout_ms < 0 || timeout_ms > ctx->busy_block_ms)
			timeout_ms = ctx->busy_block_ms;
		if (ctx->busy_block_ms < FR_BUSY_BLOCK_MAX_MS)
			ctx->busy_block_ms *= 2;
	}

	if (ctx->bell != NULL) {
		fr_block_on_bell(s, ready, timeout_ms);
		/* As after a block in the provider: a refused send is tried again. The peer drains its
		 * queue without telling us, and a refusal waited for a completion of ours, which a
		 * sender whose peer sends nothing back never gets (test_stream's full peer queue). */
		ctx->eagain = 0;
		return FR_MAY_POLL;
	}
	fr_block_in_provider(s, timeout_ms);
	return FR_POLLED;
}

/*
 * A pause between two polls of a spinning wait, with the context lock let go. Not sched_yield:
 * that is a system call per poll, and with another thread runnable (a JIT compiler, a GC) it
 * hands this core over for a time slice, which is what spinning is there to avoid. Short: a
 * message waits on average half a pause for its reader, twice a call (4 PAUSEs rather than 16
 * took up to a quarter off a warm null call on ucx:shm; docs/journal.md has the runs).
 */
static void fr_relax(void)
{
	for (int i = 0; i < 4; i++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ __volatile__("yield");
#else
		__asm__ __volatile__("" ::: "memory");
#endif
	}
}

/*
 * A reader that still has nothing after the provider worked on a message of ours without
 * completing it (sender_waits_from) rings its peer's stream back, once per such progress: the
 * peer's worker may have fragments waiting for the room we just made, or a rendezvous to answer,
 * and the provider wakes no sleeping thread of the peer for either. Work that was another
 * stream's costs the peer one look. A ring back is no provider work, so two readers never ring
 * each other on and on.
 */
static void fr_ring_back(struct fastrmi_stream *s)
{
	struct fastrmi_ctx *ctx = s->ctx;

	if (ctx->be->sender_waits_from == 0 || s->peer->bell == NULL || s->protocol_seen == ctx->protocol_work)
		return;
	s->protocol_seen = ctx->protocol_work;
	fr_bell_ring(s->peer->bell, s->peer_id);
}

/*
 * When a stream's data is likely to come: a wait under way ends after the stream's usual wait,
 * and one already longer than that (an idle connection) probably lasts as long again.
 */
static uint64_t fr_expected_data(const struct fastrmi_stream *s, uint64_t now)
{
	uint64_t waited = now - s->rx_wait_since;

	if (s->rx_wait_since == 0)
		return now + s->rx_waited_nsec;
	return waited < s->rx_waited_nsec ? s->rx_wait_since + s->rx_waited_nsec : now + waited;
}

/*
 * Whether a poller woken for another thread's message leaves the wait object to that thread
 * (fr_block): when that thread's next message is likely to come before ours. A thread on an idle
 * connection thus leaves it to the busy one; a caller waiting for the reply to a call that calls
 * it back keeps it, and hands over only the call back.
 */
static int fr_leaves_poll(const struct fastrmi_stream *s, uint64_t now)
{
	return fr_expected_data(s, now) > now + s->ctx->woken_waits_nsec;
}

/*
 * Whether a reader nudged now may spin for its data (fastrmi_stream_nudge): under adaptive waiting
 * with a spin, where the context has room for one more spinner, whatever its own budget learnt, as
 * the nudger knows better. Not asked whether the machine is crowded: a nudge hands the nudger's core
 * over (the nudger waits without spinning), and in a callback's turns a look at the run queue finds
 * the one thread woken beside the one about to sleep: the crowd rule refused almost every nudge
 * (docs/design.md has the figures).
 */
static int fr_may_spin_nudged(const struct fastrmi_stream *s, int counted)
{
	const struct fastrmi_ctx *ctx = s->ctx;

	if (ctx->wait_mode != FASTRMI_WAIT_ADAPTIVE || ctx->spin_nsec == 0)
		return 0;
	return counted || ctx->spinners < fr_wait_spinners_max();
}

/*
 * Lock held. Whether a wait on s spins though the machine is crowded: when the thread it waits for
 * runs on another CPU than this one, cpu (the CPU the peer noted in its doorbell at its last wait,
 * fr_wait_spins_though_crowded).
 */
static int fr_spins_beside_crowd(struct fastrmi_stream *s, int cpu, uint64_t now)
{
	if (s->ctx->bell == NULL || s->peer == NULL || s->peer->bell == NULL)
		return 0;
	return fr_wait_spins_though_crowded(cpu, fr_bell_cpu(s->peer->bell, s->peer_id),
					    fr_streams_asleep_lately(s->ctx, now));
}

/* Whether a wait of s for ready is inside a transfer (wait.h, FR_WAIT_STREAMING_NSEC). */
static int fr_stream_streaming(const struct fastrmi_stream *s, fr_ready_fn ready, uint64_t now)
{
	return fr_wait_streaming(now, s->tx_inflight, ready == fr_recv_ready ? s->rx_bulk_at : 0);
}

/*
 * Waits (lock held) until ready(s). 0 when ready, else a negative code (message in err).
 * Spins first for as long as the stream's budget says (wait.h), and stops spinning early when
 * the context woke another waiting thread meanwhile: in a nested call (a callback) that thread
 * is the one we wait for, and it needs the core we would spin on. Adaptive waiting lets only so
 * many threads of a context spin at once (fr_wait_spinners_max): the others block at once. A
 * reader nudged (fastrmi_stream_nudge) spins again, woken if it slept, until the nudge ends.
 */
static int fr_wait_loop(struct fastrmi_stream *s, fr_ready_fn ready, uint64_t deadline,
			char *err, size_t errlen)
{
	struct fastrmi_ctx *ctx = s->ctx;
	struct fr_wait_budget *budget = ready == fr_recv_ready ? &s->rx_wait : &s->tx_wait;
	int adaptive = ctx->wait_mode == FASTRMI_WAIT_ADAPTIVE;
	uint64_t start = 0, spin = 0, now, nudged_since = 0, budget_spin = 0;
	unsigned long wakes = 0, nudged_wakes = 0;
	int waiting = 0, blocked = 0, counted = 0, nudged = 0, nested = 0, paused = 0, streams = 0, crowded, beside_crowd, cpu;
	enum fr_may_poll may_poll = FR_MAY_POLL;
	unsigned long block_wakes = 0;
	int ret;

	/*
	 * Bytes already there: no provider work first. RMI's buffered reads take a message in several
	 * receives, and a poll of the provider costs more than the copy (the JMX scrape's profile);
	 * whoever waits next polls. Sends and closes poll first, as before: without that poll, a peer's
	 * large message was left unfinished at a context's close (test_stream's reset case under
	 * ASan: a buffer UCX kept).
	 */
	if (ready == fr_recv_ready && ready(s) && !s->aborted)
		return 0;
	for (;;) {
		ret = fr_progress(ctx, err, errlen);
		/* A poller woken for others leaves the wait object to them (fr_block). */
		if (may_poll == FR_POLLED) {
			ctx->wait_counts.woken_in_provider++;
			may_poll = FR_MAY_POLL;
			if (ctx->wakes != block_wakes && !ready(s)) {
				ctx->wait_counts.woken_for_others++;
				if (fr_leaves_poll(s, fr_now_nsec()))
					may_poll = FR_LEAVE_POLL;
			}
		}
		if (s->aborted) {
			ret = fr_stream_error(s, err, errlen);
			break;
		}
		if (ready(s)) {
			/* A nudged spin's answer says nothing of the stream's own budget. */
			if (nested && !blocked)
				ctx->wait_counts.nested_spun++;
			if (nudged)
				ctx->wait_counts.answered_nudged++;
			else if (waiting && adaptive && !paused) /* a wait after a pause did not try to spin */
				fr_wait_learn(budget, nested ? FR_WAIT_NESTED_SPIN_FACTOR * ctx->spin_nsec : ctx->spin_nsec,
					      fr_now_nsec() - start, !blocked);
			/* A pause is measured from the data last taken by a poll, waited for or not: a reader
			 * whose replies came before it looked had none, and its first wait after a pause spun. */
			if (ready == fr_recv_ready) {
				s->rx_data_at = fr_now_nsec();
				if (waiting)
					s->nudged_until = 0; /* spent on this wait; a writer's wait leaves the reader's nudge */
			}
			ret = 0;
			break;
		}
		if (ret < 0)
			break;
		ret = fr_stream_error(s, err, errlen);
		if (ret < 0)
			break;
		if (ready == fr_recv_ready)
			fr_ring_back(s);
		now = fr_now_nsec();
		if (now >= deadline) {
			if (deadline != FR_DONT_WAIT)
				fr_seterr(err, errlen, "stream %llu: timed out", (unsigned long long)s->local_id);
			ret = FASTRMI_ERR_TIMEOUT;
			break;
		}
		if (!waiting) {
			/* A wait starts: a call that found its data at once was none. */
			waiting = 1;
			start = now;
			/* What fr_leaves_poll weighs; a doorbell context has no poller. */
			if (ready == fr_recv_ready && ctx->bell == NULL)
				s->rx_wait_since = now;
			wakes = ctx->wakes;
			/* Where we wait, for the peer's waits (fr_spins_beside_crowd); the doorbell's slot is ours. */
			cpu = ctx->bell != NULL ? sched_getcpu() : -1;
			if (ctx->bell != NULL)
				fr_bell_note_cpu(ctx->bell, s->local_id, cpu);
			/* After a pause no spin, and no look at the machine on the call's path. */
			paused = adaptive && ready == fr_recv_ready && fr_wait_follows_pause(now, s->rx_data_at);
			if (paused)
				ctx->wait_counts.after_pause++;
			crowded = adaptive && !paused && ctx->spin_nsec > 0 && fr_wait_machine_crowded(now);
			beside_crowd = crowded && fr_spins_beside_crowd(s, cpu, now);
			/* A server's thread waiting for its callback's reply spins through the peer's turn. */
			nested = ready == fr_recv_ready && fr_stream_wait_is_nested(s);
			if (nested)
				ctx->wait_counts.nested++;
			if (paused) {
				spin = 0;
			} else if (nested) {
				spin = fr_wait_nested_spin_for(budget, (enum fastrmi_wait_mode)ctx->wait_mode,
							       ctx->spin_nsec, crowded && !beside_crowd);
			} else {
				spin = fr_wait_spin_for(budget, (enum fastrmi_wait_mode)ctx->wait_mode, ctx->spin_nsec,
							crowded && !beside_crowd);
			}
			/* Inside a transfer the rest is on its way: spin through it while it lasts. */
			budget_spin = spin;
			streams = adaptive && !paused && !(crowded && !beside_crowd) && fr_wait_process_warm() &&
				  fr_stream_streaming(s, ready, now);
			if (streams && spin < FR_WAIT_STREAMING_NSEC)
				spin = FR_WAIT_STREAMING_NSEC;
			if (spin > 0 && adaptive && ctx->spinners >= fr_wait_spinners_max())
				spin = 0;
			/* It nudged the stream whose data comes first: that one's reader spins, not this. */
			if (s->nudging)
				spin = 0;
			/* Counted in any wait mode: a thread that spins polls, so others leave the wait object. */
			if (spin > 0) {
				ctx->spinners++;
				counted = 1;
				if (beside_crowd)
					ctx->wait_counts.spun_crowded++;
				if (streams)
					ctx->wait_counts.streamed++;
			}
		}
		if (!blocked && now - start < spin && ctx->wakes == wakes &&
		    (now - start < budget_spin || !streams || fr_stream_streaming(s, ready, now))) {
			/* Spin, but let other threads of this context at the lock. */
			pthread_mutex_unlock(&ctx->lock);
			fr_relax();
			pthread_mutex_lock(&ctx->lock);
			continue;
		}
		if (ready == fr_recv_ready && s->nudged_until > now && !nudged) {
			if (fr_may_spin_nudged(s, counted)) {
				nudged = 1;
				nudged_since = now;
				nudged_wakes = ctx->wakes;
				if (!counted) {
					ctx->spinners++;
					counted = 1;
				}
			} else {
				s->nudged_until = 0; /* not for spinning here */
			}
		}
		/* Spun out, or the context woke another thread (its turn now). */
		if (nudged && (s->nudged_until <= now || ctx->wakes != nudged_wakes)) {
			s->nudged_until = 0;
			nudged = 0;
		}
		if (nudged) {
			pthread_mutex_unlock(&ctx->lock);
			if (now - nudged_since >= FASTRMI_NUDGED_SPIN_YIELD_NSEC)
				(void)sched_yield(); /* the nudger's guess ran long: a thread that needs this core gets it */
			else
				fr_relax();
			pthread_mutex_lock(&ctx->lock);
			continue;
		}
		if (counted) {
			ctx->spinners--;
			counted = 0;
		}
		blocked = 1;
		s->wants_tx = ready == fr_send_ready || ready == fr_tx_ready;
		block_wakes = ctx->wakes;
		may_poll = fr_block(s, ready, deadline, may_poll);
	}
	if (counted)
		ctx->spinners--;
	if (waiting && ready == fr_recv_ready && ctx->bell == NULL) {
		uint64_t waited = fr_now_nsec() - start;

		s->rx_waited_nsec = s->rx_waited_nsec == 0 ? waited : s->rx_waited_nsec - s->rx_waited_nsec / 8 + waited / 8;
		s->rx_wait_since = 0;
	}
	return ret;
}

int fr_wait(struct fastrmi_stream *s, fr_ready_fn ready, uint64_t deadline,
	    char *err, size_t errlen)
{
	struct fastrmi_ctx *ctx = s->ctx;
	int ret = fr_wait_loop(s, ready, deadline, err, errlen);

	/* Leaving with nobody polling while others sleep: one of them must take over, or they would
	 * sleep through the events they wait for. The deputy looks soon by itself (fr_block), unless
	 * it sleeps long or there is none. */
	if (ctx->deputy_wanted == s)
		ctx->deputy_wanted = NULL;
	if (ctx->bell == NULL && !ctx->poller && ctx->spinners == 0 && ctx->sleeping != NULL) {
		ctx->free_since = fr_now_nsec();
		if (ctx->deputy == NULL) {
			ctx->deputy_wanted = ctx->sleeping;
			pthread_cond_broadcast(&ctx->sleeping->cond);
		} else if (ctx->deputy_sleeps_long) {
			/* Once: the deputy looks again soon by itself, and the waits after this one (a
			 * call's reply) find nothing owed. */
			ctx->deputy_sleeps_long = 0;
			pthread_cond_broadcast(&ctx->deputy->cond);
		}
	}
	return ret;
}

/*
 * A read copying out of the window without the lock keeps the stream's reading to itself until
 * it is done: its claimed bytes must stay just before ring_head, where deliveries never write.
 */
int fr_recv_ready(const struct fastrmi_stream *s)
{
	return s->ring_claimed == 0 && (s->ring_count > 0 || s->peer_eof);
}

int fr_send_ready(const struct fastrmi_stream *s)
{
	/* A closed peer never grants again: not ready, and the wait ends in its error. */
	return s->credits > 0 && !s->peer_closed && s->ctx->tx_free != NULL && !s->ctx->eagain;
}

int fr_granted(const struct fastrmi_stream *s)
{
	return s->unreported < FR_CREDIT_BATCH && s->ctrl_inflight == 0;
}

int fr_tx_drained(const struct fastrmi_stream *s)
{
	return s->tx_inflight == 0;
}

int fr_tx_ready(const struct fastrmi_stream *s)
{
	return s->ctx->tx_free != NULL && !s->ctx->eagain;
}

FASTRMI_API void fastrmi_ctx_wait_counts(fastrmi_ctx *ctx, struct fastrmi_wait_counts *counts)
{
	memset(counts, 0, sizeof(*counts));
	if (ctx == NULL)
		return;
	pthread_mutex_lock(&ctx->lock);
	*counts = ctx->wait_counts;
	pthread_mutex_unlock(&ctx->lock);
}

FASTRMI_API void fastrmi_ctx_receive_counts(fastrmi_ctx *ctx, struct fastrmi_receive_counts *counts)
{
	memset(counts, 0, sizeof(*counts));
	if (ctx == NULL)
		return;
	pthread_mutex_lock(&ctx->lock);
	*counts = ctx->receive_counts;
	pthread_mutex_unlock(&ctx->lock);
}

FASTRMI_API int fastrmi_stream_nudge(fastrmi_stream *s, uint64_t spin_nsec, char *err, size_t errlen)
{
	struct fastrmi_ctx *ctx;
	int ring = 0;

	fr_clearerr(err, errlen);
	if (s == NULL) {
		fr_seterr(err, errlen, "fastrmi_stream_nudge: stream is NULL");
		return FASTRMI_ERR_INVALID;
	}
	if (spin_nsec > FR_NUDGED_SPIN_MAX_NSEC)
		spin_nsec = FR_NUDGED_SPIN_MAX_NSEC;
	ctx = s->ctx;
	pthread_mutex_lock(&ctx->lock);
	s->nudged_until = fr_now_nsec() + spin_nsec;
	if (s->sleepers > 0 || (ctx->poller && ctx->poller_stream == s)) {
		ctx->wait_counts.nudges++;
		fr_wake_stream_rung(s, 0, &ring);
	}
	pthread_mutex_unlock(&ctx->lock);
	/* The stream stays open while its nudger's call lasts (the binding's gate); a ring for a
	 * slot whose sleeper woke meanwhile only makes it look once more. */
	if (ring)
		fr_bell_ring(ctx->bell, s->local_id);
	return 0;
}
