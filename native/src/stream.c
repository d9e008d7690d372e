/*
 * stream.c - the byte-stream layer: streams and their API, and how the layer works. Its other
 * files share stream.h: message.c (messages, send buffers, credit), progress.c (progress and
 * waiting), context.c (a context's life and its peers).
 *
 * The backends (ofi.c, ucx.c) only move tagged messages of at most FR_MSG_MAX bytes
 * between contexts; everything a stream means is here:
 *
 *  - Framing: each message is a struct fr_msg_hdr (DATA, CREDIT, FIN or CLOSE) and, for DATA,
 *    up to the context's chunk (FR_CHUNK, or less: ofi:shm) payload bytes. It is sent with tag =
 *    the receiving stream's id.
 *  - Order: each stream has exactly one receive posted (tag = its id, into its own
 *    bounce buffer) and reposts it when it completes, so its messages complete in the
 *    order they were sent (FI_ORDER_SAS / UCX tag ordering), whatever the protocol
 *    (eager, rendezvous) each one used.
 *  - Flow control: the reader owns a ring of FASTRMI_STREAM_WINDOW bytes. The sender
 *    starts with no credit; the reader grants the whole window when it opens, then
 *    returns credit in CREDIT messages once a quarter of the window has been consumed.
 *    The sender never sends more than its credit, so a DATA message always fits in the
 *    ring: nothing is dropped and memory is bounded, however slow the reader.
 *  - Threads: one mutex per context around every provider call and all stream state; a large
 *    read or send copies its bytes out of the ring or into the send buffer after letting go of
 *    it (fastrmi_recv, fr_send_data_copied_unlocked).
 *    A thread waiting for its stream spins on progress while spinning pays (wait.h, at
 *    most spin_usec), then blocks:
 *     - on a context with a doorbell (doorbell.c: ofi:shm, ucx:shm), on its stream's slot,
 *       which the peer rings when it sends to that stream: the wake-up goes straight to it.
 *       A sender rings after it let go of the lock where it can (a thread woken while we hold
 *       it may take our core and leave our other threads waiting for the lock), and whoever
 *       delivers a small message does not ring again: the peer's ring woke its waiter;
 *     - otherwise one thread (the "poller") blocks in the backend's wait (an fd), outside
 *       the mutex, and the others wait on their stream's condition variable. Whoever
 *       makes progress wakes the streams it delivered to (and kicks the poller when it
 *       waits for one of them). The poller is the thread the next message is likely for: a
 *       thread takes the wait object only while no other thread polls or spins, and a poller
 *       woken for another's message leaves it to that thread; one sleeper, the deputy, looks
 *       every FR_DEPUTY_NSEC whether the wait object was left free (progress.c, fr_block).
 */
#define _GNU_SOURCE /* pthread_condattr_setclock */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "stream.h"

/*
 * A stream's ring and receive buffer come straight from the kernel: a page costs memory only
 * once touched, so a stream of small messages holds the few pages it uses (its ring starts over
 * at 0 whenever it is empty), and a closed stream gives all back. malloc would keep freed
 * buffers in the heap, and calloc zero all 256 KiB of a receive buffer taken from it.
 */
static void *fr_pages_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void fr_pages_free(void *p, size_t size, const char *what)
{
	if (p != NULL && munmap(p, size) != 0)
		fprintf(stderr, "libfastrmi: munmap %s: %s\n", what, strerror(errno));
}

static void fr_ring_free(unsigned char *ring)
{
	fr_pages_free(ring, FASTRMI_STREAM_WINDOW, "stream window");
}

void fr_rx_free(struct fr_rx *rx)
{
	fr_ring_free(rx->window);
	fr_pages_free(rx, sizeof(*rx), "receive buffer");
}

/* ---- stream table ------------------------------------------------------------------ */

static struct fastrmi_stream **fr_bucket(struct fastrmi_ctx *ctx, uint64_t id)
{
	/* Fibonacci hashing: ids are often sequential. */
	return &ctx->buckets[(id * 0x9E3779B97F4A7C15ull) >> 56 & (FR_STREAM_BUCKETS - 1)];
}

struct fastrmi_stream *fr_stream_find(struct fastrmi_ctx *ctx, uint64_t id)
{
	struct fastrmi_stream *s;

	for (s = *fr_bucket(ctx, id); s != NULL; s = s->next_in_bucket)
		if (s->local_id == id)
			return s;
	return NULL;
}

static void fr_stream_unlink(struct fastrmi_stream *s)
{
	struct fastrmi_stream **p;

	for (p = fr_bucket(s->ctx, s->local_id); *p != NULL; p = &(*p)->next_in_bucket) {
		if (*p == s) {
			*p = s->next_in_bucket;
			break;
		}
	}
	if (s->is_pending) {
		for (p = &s->ctx->pending; *p != NULL; p = &(*p)->next_pending) {
			if (*p == s) {
				*p = s->next_pending;
				break;
			}
		}
		s->is_pending = 0;
	}
}

/* ---- waking and failing -------------------------------------------------------------- */

/*
 * Waking is per stream: an event on stream S wakes the threads asleep on S's condition
 * variable, and the poller if it waits for S (it sleeps in the provider's wait object,
 * outside the lock, so it needs a kick). A freed send buffer wakes those waiting for one.
 * When ring_later is not NULL, a doorbell sleeper's ring is left to the caller (*ring_later
 * set) for after it has let go of the lock: woken at once on another CPU, the sleeper would
 * find the lock still held and sleep again in the mutex.
 */
void fr_wake_stream_rung(struct fastrmi_stream *s, int peer_rang, int *ring_later)
{
	struct fastrmi_ctx *ctx = s->ctx;

	if (s->sleepers > 0) {
		if (ctx->bell == NULL || peer_rang)
			pthread_cond_broadcast(&s->cond);
		else if (ring_later != NULL)
			*ring_later = 1;
		else
			fr_bell_ring(ctx->bell, s->local_id);
		ctx->wakes++;
		ctx->woken_waits_nsec = s->rx_waited_nsec;
	}
	if (ctx->poller && ctx->poller_stream == s) {
		ctx->be->kick(ctx);
		ctx->wakes++;
	}
}

void fr_wake_stream(struct fastrmi_stream *s)
{
	fr_wake_stream_rung(s, 0, NULL);
}

void fr_wake_tx_waiters(struct fastrmi_ctx *ctx)
{
	struct fastrmi_stream *s;

	for (s = ctx->sleeping; s != NULL; s = s->next_sleeping)
		if (s->wants_tx && ctx->bell != NULL)
			fr_bell_ring(ctx->bell, s->local_id);
		else if (s->wants_tx)
			pthread_cond_broadcast(&s->cond);
	if (ctx->poller && ctx->poller_stream != NULL && ctx->poller_stream->wants_tx)
		ctx->be->kick(ctx);
}

void fr_wake_all(struct fastrmi_ctx *ctx)
{
	struct fastrmi_stream *s;

	for (s = ctx->sleeping; s != NULL; s = s->next_sleeping)
		if (ctx->bell != NULL)
			fr_bell_ring(ctx->bell, s->local_id);
		else
			pthread_cond_broadcast(&s->cond);
	if (ctx->poller)
		ctx->be->kick(ctx);
}

void fr_stream_fail(struct fastrmi_stream *s, int code, const char *msg)
{
	if (s->failed)
		return;
	s->failed = code;
	snprintf(s->fail_msg, sizeof(s->fail_msg), "stream %llu: %s",
		 (unsigned long long)s->local_id, fr_text(msg));
	fr_wake_stream(s);
}

void fr_peer_failed(struct fastrmi_ctx *ctx, struct fr_peer *peer, const char *msg)
{
	if (!peer->failed) {
		peer->failed = 1;
		snprintf(peer->fail_msg, sizeof(peer->fail_msg), "%s", fr_text(msg));
	}
	fr_wake_all(ctx);
}

/* The stream's error, if it has one: 0 or a negative code with its message in err. */
int fr_stream_error(const struct fastrmi_stream *s, char *err, size_t errlen)
{
	if (s->aborted) {
		fr_seterr(err, errlen, "stream %llu aborted", (unsigned long long)s->local_id);
		return FASTRMI_ERR_ABORTED;
	}
	if (s->failed) {
		fr_seterr(err, errlen, "%s", s->fail_msg);
		return s->failed;
	}
	if (s->peer_closed) {
		fr_seterr(err, errlen, "stream %llu: connection reset: the peer closed the stream",
			  (unsigned long long)s->local_id);
		return FASTRMI_ERR_RESET;
	}
	if (s->peer->failed) {
		fr_seterr(err, errlen, "stream %llu: peer failed: %s",
			  (unsigned long long)s->local_id, s->peer->fail_msg);
		return FASTRMI_ERR_PROVIDER;
	}
	if (s->ctx->failed) {
		fr_seterr(err, errlen, "%s", s->ctx->fail_msg);
		return FASTRMI_ERR_PROVIDER;
	}
	return 0;
}

/* ---- streams ------------------------------------------------------------------------- */

FASTRMI_API int fastrmi_stream_open(fastrmi_ctx *ctx, const void *peer_addr, size_t peer_addr_len,
				    uint64_t local_id, uint64_t peer_id, fastrmi_stream **streamp,
				    char *err, size_t errlen)
{
	struct fastrmi_stream *s;
	int code = 0;

	fr_clearerr(err, errlen);
	if (ctx == NULL || peer_addr == NULL || peer_addr_len == 0 ||
	    peer_addr_len > FASTRMI_ADDRESS_MAX || streamp == NULL) {
		fr_seterr(err, errlen, "fastrmi_stream_open: bad argument (NULL or address length %zu)",
			  peer_addr_len);
		return FASTRMI_ERR_INVALID;
	}
	*streamp = NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL || (s->ring = fr_pages_alloc(FASTRMI_STREAM_WINDOW)) == NULL ||
	    (s->rx = fr_pages_alloc(sizeof(*s->rx))) == NULL) {
		if (s != NULL)
			fr_ring_free(s->ring);
		free(s);
		fr_seterr(err, errlen, "fastrmi_stream_open: out of memory");
		return FASTRMI_ERR_NOMEM;
	}
	s->ctx = ctx;
	code = fr_check_init(pthread_cond_init(&s->cond, &ctx->condattr), "pthread_cond_init(stream)", err, errlen);
	if (code != 0) {
		fr_rx_free(s->rx);
		fr_ring_free(s->ring);
		free(s);
		return code;
	}
	s->local_id = local_id;
	s->peer_id = peer_id;
	s->rx->op.kind = FR_OP_RX;
	s->rx->op.ctx = ctx;
	s->rx->owner = s;
	/* Nothing granted yet: the first flush sends the peer the whole window. */
	s->unreported = FASTRMI_STREAM_WINDOW;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->failed) {
		fr_seterr(err, errlen, "%s", ctx->fail_msg);
		code = FASTRMI_ERR_PROVIDER;
	} else if (fr_stream_find(ctx, local_id) != NULL) {
		fr_seterr(err, errlen, "fastrmi_stream_open: stream id %llu is already open",
			  (unsigned long long)local_id);
		code = FASTRMI_ERR_INVALID;
	} else {
		s->peer = fr_peer_get(ctx, peer_addr, peer_addr_len, err, errlen, &code);
	}
	if (s->peer == NULL) {
		pthread_mutex_unlock(&ctx->lock);
		fr_report_errno("pthread_cond_destroy(stream)", pthread_cond_destroy(&s->cond));
		fr_rx_free(s->rx);
		fr_ring_free(s->ring);
		free(s);
		return code;
	}
	s->next_in_bucket = *fr_bucket(ctx, local_id);
	*fr_bucket(ctx, local_id) = s;
	/* The doorbell slots it sleeps on and rings hold their pipes while it is open (doorbell.c). */
	if (ctx->bell != NULL)
		fr_bell_use(ctx->bell, s->local_id);
	if (s->peer->bell != NULL)
		fr_bell_use(s->peer->bell, s->peer_id);
	fr_post_rx(s);
	fr_stream_flush(s);
	/* The first send to a new peer may be refused for a moment (shm maps the peer's
	 * region first) or need both sides' progress (UCX wire-up): see the grant delivered
	 * here, so it does not wait for this side's next call. */
	if (!s->failed && !fr_granted(s))
		(void)fr_wait(s, fr_granted, fr_deadline(1000), NULL, 0);
	if (s->failed) {
		code = s->failed;
		fr_seterr(err, errlen, "%s", s->fail_msg);
		fr_stream_free(s);
		pthread_mutex_unlock(&ctx->lock);
		return code;
	}
	pthread_mutex_unlock(&ctx->lock);
	*streamp = s;
	return 0;
}

FASTRMI_API int64_t fastrmi_send(fastrmi_stream *s, const void *buf, size_t len, int timeout_ms,
				 char *err, size_t errlen)
{
	uint64_t deadline = fr_deadline(timeout_ms);
	size_t sent = 0, n;
	int ret = 0, ring = 0;

	fr_clearerr(err, errlen);
	if (s == NULL || (buf == NULL && len > 0) || len > INT64_MAX) {
		fr_seterr(err, errlen, "fastrmi_send: bad argument");
		return FASTRMI_ERR_INVALID;
	}
	pthread_mutex_lock(&s->ctx->lock);
	if (s->write_shut && !s->aborted) {
		fr_seterr(err, errlen, "stream %llu: writing was shut down", (unsigned long long)s->local_id);
		ret = FASTRMI_ERR_CLOSED;
	}
	if (ret == 0 && len > 0)
		fr_stream_sends(s);
	while (ret == 0 && sent < len) {
		if (ring && !fr_send_ready(s))
			fr_ring_peer(s, &ring); /* the peer must take what we sent before we may send on */
		ret = fr_wait(s, fr_send_ready, deadline, err, errlen);
		if (ret == FASTRMI_ERR_RESET && len - sent <= s->drop_left) {
			/* The peer closed: dropped, as TCP's buffers would take it (see above). */
			s->drop_left -= len - sent;
			sent = len;
			ret = 0;
			break;
		}
		if (ret == FASTRMI_ERR_RESET)
			s->drop_left = 0;
		if (ret < 0)
			break;
		n = len - sent;
		if (n > s->credits)
			n = s->credits;
		if (n > s->ctx->chunk)
			n = s->ctx->chunk;
		if (n >= FR_COPY_UNLOCKED_MIN)
			ret = fr_send_data_copied_unlocked(s, (const unsigned char *)buf + sent, n, &ring, err, errlen);
		else
			ret = fr_send_msg_ringing(s, FR_MSG_DATA, (const unsigned char *)buf + sent, n, &ring, err, errlen);
		if (ret < 0) {
			fr_stream_fail(s, FASTRMI_ERR_PROVIDER, err);
			ret = FASTRMI_ERR_PROVIDER;
			break;
		}
		if (ret == 0) {
			s->credits -= n;
			sent += n;
		}
		ret = 0;
	}
	/*
	 * Wait until the provider is done with our messages. Large messages are pulled by
	 * the receiver (shm CMA, ofi_rxm and UCX rendezvous) and may need our progress to
	 * get there; a caller that goes idle after sending must not leave them stuck.
	 * A timeout here still means every byte was handed over.
	 */
	if (ret == 0 && s->tx_inflight > 0) {
		fr_ring_peer(s, &ring);
		ret = fr_wait(s, fr_tx_drained, deadline, err, errlen);
		if (ret == FASTRMI_ERR_TIMEOUT || ret == FASTRMI_ERR_RESET)
			ret = 0;
	}
	pthread_mutex_unlock(&s->ctx->lock);
	fr_ring_peer(s, &ring);
	if (ret == 0)
		return (int64_t)len;
	if (ret == FASTRMI_ERR_TIMEOUT && sent > 0)
		return (int64_t)sent;
	return ret;
}

/* Copies n bytes of the ring from offset start into buf, wrapping at its end. */
static void fr_ring_copy_out(const struct fastrmi_stream *s, size_t start, void *buf, size_t n)
{
	size_t first = FASTRMI_STREAM_WINDOW - start;

	if (first > n)
		first = n;
	memcpy(buf, s->ring + start, first);
	memcpy((unsigned char *)buf + first, s->ring, n - first);
}

/* Takes n bytes off the ring's head (lock held): returns where they start, for fr_ring_copy_out. */
static size_t fr_ring_take(struct fastrmi_stream *s, size_t n)
{
	size_t start = s->ring_head;

	s->ring_head = (s->ring_head + n) % FASTRMI_STREAM_WINDOW;
	s->ring_count -= n;
	return start;
}

/*
 * After n taken bytes were copied out (lock held, no claim out): they are owed to the peer as
 * credit, and an empty ring starts over at its first pages (and cache lines), where small
 * messages then stay.
 */
static void fr_ring_taken(struct fastrmi_stream *s, size_t n)
{
	/* Not under a receive posted into the window: its message lands at the tail it had. */
	if (s->ring_count == 0 && !(s->rx->posted && s->rx->in_window))
		s->ring_head = 0;
	s->unreported += n;
	fr_stream_took(s, n);
}

/* The serving stream whose request this thread took last and has not answered: compared, never followed. */
static __thread const struct fastrmi_stream *fr_thread_serving;

void fr_stream_took(struct fastrmi_stream *s, size_t n)
{
	if (n == 0)
		return;
	if (!s->spoke)
		s->serves = 1;
	if (s->serves)
		fr_thread_serving = s;
}

/* This thread answers no request on s any more: it wrote to it, or closes it. */
static void fr_thread_served(const struct fastrmi_stream *s)
{
	if (fr_thread_serving == s)
		fr_thread_serving = NULL;
}

void fr_stream_sends(struct fastrmi_stream *s)
{
	s->spoke = 1;
	fr_thread_served(s);
}

int fr_stream_wait_is_nested(const struct fastrmi_stream *s)
{
	return fr_thread_serving != NULL && fr_thread_serving != s && !s->serves;
}

FASTRMI_API int64_t fastrmi_recv(fastrmi_stream *s, void *buf, size_t cap, int timeout_ms,
				 char *err, size_t errlen)
{
	uint64_t deadline = fr_deadline(timeout_ms);
	size_t n, start;
	int ret;

	fr_clearerr(err, errlen);
	if (s == NULL || (buf == NULL && cap > 0)) {
		fr_seterr(err, errlen, "fastrmi_recv: bad argument");
		return FASTRMI_ERR_INVALID;
	}
	if (cap == 0)
		return 0;
	pthread_mutex_lock(&s->ctx->lock);
	ret = fr_wait(s, fr_recv_ready, deadline, err, errlen);
	if (ret < 0) {
		pthread_mutex_unlock(&s->ctx->lock);
		return ret;
	}
	n = s->ring_count < cap ? s->ring_count : cap;
	start = fr_ring_take(s, n);
	if (n >= FR_COPY_UNLOCKED_MIN) {
		/*
		 * A large copy goes without the lock, so that the context's other streams do not wait
		 * for it. Its bytes are off the ring but not yet credit: the peer cannot have been
		 * granted their room, and a message that would land on them is refused as over credit.
		 */
		s->ring_claimed += n;
		pthread_mutex_unlock(&s->ctx->lock);
		fr_ring_copy_out(s, start, buf, n);
		pthread_mutex_lock(&s->ctx->lock);
		s->ring_claimed -= n;
		fr_wake_stream(s); /* a reader that waited for this copy to end */
	} else {
		fr_ring_copy_out(s, start, buf, n);
	}
	/* No claim is out: only this read could have made one (fr_recv_ready). */
	fr_ring_taken(s, n);
	if (s->unreported >= FR_CREDIT_BATCH)
		fr_stream_flush(s);
	pthread_mutex_unlock(&s->ctx->lock);
	return (int64_t)n;
}

FASTRMI_API int64_t fastrmi_send_at(fastrmi_stream *s, const void *base, size_t offset, size_t len,
				    int timeout_ms, char *err, size_t errlen)
{
	if (base == NULL && (offset > 0 || len > 0)) {
		fr_clearerr(err, errlen);
		fr_seterr(err, errlen, "fastrmi_send_at: bad argument");
		return FASTRMI_ERR_INVALID;
	}
	return fastrmi_send(s, base == NULL ? NULL : (const unsigned char *)base + offset, len, timeout_ms, err, errlen);
}

FASTRMI_API int64_t fastrmi_recv_at(fastrmi_stream *s, void *base, size_t offset, size_t cap,
				    int timeout_ms, char *err, size_t errlen)
{
	if (base == NULL && (offset > 0 || cap > 0)) {
		fr_clearerr(err, errlen);
		fr_seterr(err, errlen, "fastrmi_recv_at: bad argument");
		return FASTRMI_ERR_INVALID;
	}
	return fastrmi_recv(s, base == NULL ? NULL : (unsigned char *)base + offset, cap, timeout_ms, err, errlen);
}

FASTRMI_API int64_t fastrmi_recv_received_at(fastrmi_stream *s, void *base, size_t offset, size_t cap)
{
	size_t n, room;

	if (s == NULL || base == NULL || cap == 0)
		return FASTRMI_ERR_TIMEOUT; /* the ordinary read that follows reports bad arguments */
	if (pthread_mutex_trylock(&s->ctx->lock) != 0)
		return FASTRMI_ERR_TIMEOUT; /* its holder may spin on a dead peer's lock: never wait for it */
	/* Stop short of owing the peer credit: reporting it is a send, which may spin as well. */
	room = s->unreported < FR_CREDIT_BATCH - 1 ? FR_CREDIT_BATCH - 1 - s->unreported : 0;
	n = s->ring_count < cap ? s->ring_count : cap;
	if (n > room)
		n = room;
	if (s->failed || s->aborted || s->ring_claimed > 0 || n == 0) {
		pthread_mutex_unlock(&s->ctx->lock);
		return FASTRMI_ERR_TIMEOUT;
	}
	/* Copied with the lock held: retaking it after an unlocked copy could wait. */
	fr_ring_copy_out(s, fr_ring_take(s, n), (unsigned char *)base + offset, n);
	fr_ring_taken(s, n);
	pthread_mutex_unlock(&s->ctx->lock);
	return (int64_t)n;
}

/*
 * fastrmi_wait_readable (call: the API call, for its errors); without spinning when nudging (its
 * thread nudged the stream whose data comes first).
 */
static int64_t fr_wait_readable(const char *call, fastrmi_stream *s, int nudging, int timeout_ms, char *err,
				size_t errlen)
{
	int64_t ret;

	fr_clearerr(err, errlen);
	if (s == NULL) {
		fr_seterr(err, errlen, "%s: stream is NULL", call);
		return FASTRMI_ERR_INVALID;
	}
	pthread_mutex_lock(&s->ctx->lock);
	s->nudging = nudging;
	ret = fr_wait(s, fr_recv_ready, fr_deadline(timeout_ms), err, errlen);
	s->nudging = 0;
	if (ret == 0)
		ret = (int64_t)s->ring_count;
	pthread_mutex_unlock(&s->ctx->lock);
	return ret;
}

FASTRMI_API int64_t fastrmi_wait_readable(fastrmi_stream *s, int timeout_ms, char *err, size_t errlen)
{
	return fr_wait_readable("fastrmi_wait_readable", s, 0, timeout_ms, err, errlen);
}

FASTRMI_API int64_t fastrmi_wait_readable_after_nudge(fastrmi_stream *s, int timeout_ms, char *err, size_t errlen)
{
	return fr_wait_readable("fastrmi_wait_readable_after_nudge", s, 1, timeout_ms, err, errlen);
}

FASTRMI_API int fastrmi_wait_writable(fastrmi_stream *s, int timeout_ms, char *err, size_t errlen)
{
	int ret;

	fr_clearerr(err, errlen);
	if (s == NULL) {
		fr_seterr(err, errlen, "fastrmi_wait_writable: stream is NULL");
		return FASTRMI_ERR_INVALID;
	}
	pthread_mutex_lock(&s->ctx->lock);
	if (s->write_shut && !s->aborted) {
		fr_seterr(err, errlen, "stream %llu: writing was shut down", (unsigned long long)s->local_id);
		ret = FASTRMI_ERR_CLOSED;
	} else {
		ret = fr_wait(s, fr_send_ready, fr_deadline(timeout_ms), err, errlen);
		/* A closed peer: the send decides whether its bytes are dropped or reset (fastrmi_send). */
		if (ret == FASTRMI_ERR_RESET && s->drop_left > 0) {
			fr_clearerr(err, errlen);
			ret = 0;
		}
	}
	pthread_mutex_unlock(&s->ctx->lock);
	return ret;
}

FASTRMI_API size_t fastrmi_available(fastrmi_stream *s)
{
	size_t n;

	if (s == NULL)
		return 0;
	pthread_mutex_lock(&s->ctx->lock);
	(void)fr_progress(s->ctx, NULL, 0);
	n = s->ring_count;
	pthread_mutex_unlock(&s->ctx->lock);
	return n;
}

FASTRMI_API int fastrmi_shutdown_write(fastrmi_stream *s, char *err, size_t errlen)
{
	int ret = 0;

	fr_clearerr(err, errlen);
	if (s == NULL) {
		fr_seterr(err, errlen, "fastrmi_shutdown_write: stream is NULL");
		return FASTRMI_ERR_INVALID;
	}
	pthread_mutex_lock(&s->ctx->lock);
	ret = fr_stream_error(s, err, errlen);
	if (ret == FASTRMI_ERR_RESET) {
		ret = 0; /* as TCP's: shutting down towards a closed peer is no error */
		s->write_shut = 1;
	} else if (ret == 0 && !s->write_shut) {
		s->write_shut = 1;
		s->fin_pending = 1;
		fr_stream_flush(s);
	}
	pthread_mutex_unlock(&s->ctx->lock);
	return ret;
}

FASTRMI_API void fastrmi_stream_abort(fastrmi_stream *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&s->ctx->lock);
	s->aborted = 1;
	s->peer->alive_nsec = 0; /* aborted for the peer's death, often: its next send looks whether it lives */
	fr_wake_stream(s);
	pthread_mutex_unlock(&s->ctx->lock);
}

/* Lock held. Unlinks and frees the stream; a receive still posted becomes an orphan. */
void fr_stream_free(struct fastrmi_stream *s)
{
	struct fastrmi_ctx *ctx = s->ctx;
	struct fr_rx *rx = s->rx;

	fr_stream_unlink(s);
	if (s->tx_inflight > 0 || s->ctrl_inflight > 0)
		fr_orphan_txs(ctx, s->local_id);
	if (rx->posted) {
		/* The provider may still write the buffer: it is freed when the receive
		 * completes (cancelled), or when the context closes. */
		rx->owner = NULL;
		if (rx->in_window) {
			rx->window = s->ring; /* the provider may still write there */
			s->ring = NULL;
		}
		rx->prev_orphan = NULL;
		rx->next_orphan = ctx->orphans;
		if (ctx->orphans != NULL)
			ctx->orphans->prev_orphan = rx;
		ctx->orphans = rx;
		if (!s->peer_eof && !s->failed && !s->peer->failed) {
			/* The peer may still be sending (it has not seen our CLOSE yet): take it. */
			rx->drain_tag = s->local_id;
			rx->drain_until_nsec = fr_now_nsec() + (uint64_t)FR_LINGER_MS * 1000000u;
		} else {
			ctx->be->cancel_recv(ctx, rx);
		}
	} else {
		fr_rx_free(rx);
	}
	if (ctx->bell != NULL)
		fr_bell_unuse(ctx->bell, s->local_id);
	if (s->peer->bell != NULL)
		fr_bell_unuse(s->peer->bell, s->peer_id);
	fr_peer_unref(ctx, s->peer);
	fr_report_errno("pthread_cond_destroy(stream)", pthread_cond_destroy(&s->cond));
	fr_ring_free(s->ring);
	free(s);
}

FASTRMI_API void fastrmi_stream_close(fastrmi_stream *s)
{
	struct fastrmi_ctx *ctx;

	if (s == NULL)
		return;
	fr_thread_served(s);
	ctx = s->ctx;
	pthread_mutex_lock(&ctx->lock);
	/* Linger: let the peer take the data still in flight (it may pull it from us). */
	if (!s->aborted && !s->failed && s->tx_inflight > 0)
		(void)fr_wait(s, fr_tx_drained, fr_deadline(FR_LINGER_MS), NULL, 0);
	/*
	 * CLOSE: the end of the stream for the peer's reads, and the end of its writes (a
	 * writer waiting for credit would wait forever). Sent after an abort too: that only
	 * woke our own threads; and to a peer that closed first: it ends its draining.
	 * Waits a little for a send buffer if none is free.
	 */
	if (!s->failed && !s->peer->failed) {
		s->aborted = 0; /* the wait below is ours, not the woken caller's */
		s->peer->alive_nsec = 0; /* a peer that died is sent nothing (fr_ofi_peer_gone): look first */
		if (fr_wait(s, fr_tx_ready, fr_deadline(100), NULL, 0) == 0)
			(void)fr_send_msg(s, FR_MSG_CLOSE, NULL, 0, NULL, 0);
	}
	fr_stream_free(s);
	pthread_mutex_unlock(&ctx->lock);
}
