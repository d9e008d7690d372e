/*
 * stream.c - the byte-stream layer: contexts, streams, flow control and waiting.
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
 *       waits for one of them); when the poller leaves, a sleeping waiter takes its place.
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

#include "internal.h"
#include "wait.h"

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

static void fr_rx_free(struct fr_rx *rx)
{
	fr_pages_free(rx, sizeof(*rx), "receive buffer");
}

static void fr_ring_free(unsigned char *ring)
{
	fr_pages_free(ring, FASTRMI_STREAM_WINDOW, "stream window");
}

/* Credit goes back to the sender once this much has been consumed. */
#define FR_CREDIT_BATCH (FASTRMI_STREAM_WINDOW / 4)
/* A read or send of at least this many bytes copies them out of the ring or into the send buffer
 * without the context's lock (a few microseconds of memcpy); a smaller one is quicker done than
 * the lock taken again. */
#define FR_COPY_UNLOCKED_MIN (16 * 1024)
/* Longest a poller blocks while it can only learn of progress by looking (see fr_block). */
#define FR_BUSY_BLOCK_MAX_MS 64
/* Arms in a row answered "busy" with nothing delivered, before we sleep anyway. */
#define FR_BUSY_ARMS_MAX 16
#define FR_FOREVER UINT64_MAX
/* How long closing a stream waits for its messages in flight to be taken, and how long a
 * closed stream takes (and drops) what its peer still sends. */
#define FR_LINGER_MS 2000
/*
 * After the peer's CLOSE, sends still "succeed" for this many bytes (dropped) before they fail
 * with a reset: TCP's buffers take that much from a writer before the peer's reset reaches it,
 * so a caller that writes a little more, then reads the answer the peer sent before closing
 * (RMI's call rejected by a filter), gets that answer as over TCP.
 */
#define FR_DROP_AFTER_CLOSE (2 * FASTRMI_STREAM_WINDOW)

struct fastrmi_stream {
	struct fastrmi_ctx *ctx;
	struct fastrmi_stream *next_in_bucket;
	struct fastrmi_stream *next_pending;
	int is_pending;
	uint64_t local_id;
	uint64_t peer_id;
	struct fr_peer *peer;

	/* receive side */
	unsigned char *ring;    /* FASTRMI_STREAM_WINDOW bytes */
	size_t ring_head;       /* next byte to read */
	size_t ring_count;      /* bytes to read */
	size_t ring_claimed;    /* bytes just before ring_head that one reader copies out without the lock */
	size_t unreported;      /* consumed (or never granted) bytes not yet sent as credit */
	int peer_eof;           /* FIN or CLOSE received */
	int peer_closed;        /* CLOSE received: the peer reads no more, sending fails */
	size_t drop_left;       /* after CLOSE: bytes sends may still drop (FR_DROP_AFTER_CLOSE) */
	struct fr_rx *rx;
	int rx_needs_post;

	/* send side */
	size_t credits;         /* bytes we may still send */
	unsigned tx_inflight;   /* our DATA messages the provider has not completed yet */
	unsigned ctrl_inflight; /* our CREDIT / FIN messages likewise */
	int write_shut;
	int fin_pending;

	unsigned long protocol_seen; /* the context's protocol_work when fr_ring_back last looked */

	/* waiting: how long to spin (wait.h), and threads of this stream asleep on cond (fr_block) */
	struct fr_wait_budget rx_wait; /* for data */
	struct fr_wait_budget tx_wait; /* for credit or a send buffer */
	pthread_cond_t cond;
	unsigned sleepers;
	int wants_tx;           /* its waiter needs a free send buffer */
	struct fastrmi_stream *next_sleeping;
	struct fastrmi_stream *prev_sleeping;

	int aborted;
	int failed;             /* a FASTRMI_ERR_* once the stream broke */
	char fail_msg[256];
};

typedef int (*fr_ready_fn)(const struct fastrmi_stream *s);

static uint64_t fr_now_nsec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t fr_deadline(int timeout_ms)
{
	if (timeout_ms < 0)
		return FR_FOREVER;
	return fr_now_nsec() + (uint64_t)timeout_ms * 1000000u;
}

/* ---- stream table ------------------------------------------------------------------ */

static struct fastrmi_stream **fr_bucket(struct fastrmi_ctx *ctx, uint64_t id)
{
	/* Fibonacci hashing: ids are often sequential. */
	return &ctx->buckets[(id * 0x9E3779B97F4A7C15ull) >> 56 & (FR_STREAM_BUCKETS - 1)];
}

static struct fastrmi_stream *fr_stream_find(struct fastrmi_ctx *ctx, uint64_t id)
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
 */
static void fr_wake_stream_rung(struct fastrmi_stream *s, int peer_rang)
{
	struct fastrmi_ctx *ctx = s->ctx;

	if (s->sleepers > 0) {
		if (ctx->bell != NULL && !peer_rang)
			fr_bell_ring(ctx->bell, s->local_id);
		else
			pthread_cond_broadcast(&s->cond);
		ctx->wakes++;
	}
	if (ctx->poller && ctx->poller_stream == s) {
		ctx->be->kick(ctx);
		ctx->wakes++;
	}
}

static void fr_wake_stream(struct fastrmi_stream *s)
{
	fr_wake_stream_rung(s, 0);
}

static void fr_wake_tx_waiters(struct fastrmi_ctx *ctx)
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

static void fr_wake_all(struct fastrmi_ctx *ctx)
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

static void fr_stream_fail(struct fastrmi_stream *s, int code, const char *msg)
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
static int fr_stream_error(const struct fastrmi_stream *s, char *err, size_t errlen)
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

/* ---- messages ------------------------------------------------------------------------ */

/* Takes a send buffer off the pool, or NULL when all are in flight. */
static struct fr_tx *fr_take_tx(struct fastrmi_ctx *ctx)
{
	struct fr_tx *tx = ctx->tx_free;

	if (tx != NULL)
		ctx->tx_free = tx->next_free;
	return tx;
}

/* Gives a send buffer back to the pool. */
static void fr_put_tx(struct fastrmi_ctx *ctx, struct fr_tx *tx)
{
	tx->next_free = ctx->tx_free;
	ctx->tx_free = tx;
}

/* A new send buffer of the context, in the pool; 0, or -1 out of memory. */
static int fr_add_tx(struct fastrmi_ctx *ctx)
{
	struct fr_tx *tx = calloc(1, sizeof(*tx));

	if (tx == NULL)
		return -1;
	tx->op.kind = FR_OP_TX;
	tx->op.ctx = ctx;
	tx->next_all = ctx->tx_all;
	ctx->tx_all = tx;
	fr_put_tx(ctx, tx);
	return 0;
}

/* Unlinks a send buffer from the context's list and frees it. */
static void fr_free_tx(struct fastrmi_ctx *ctx, struct fr_tx *tx)
{
	struct fr_tx **p;

	for (p = &ctx->tx_all; *p != NULL; p = &(*p)->next_all)
		if (*p == tx) {
			*p = tx->next_all;
			break;
		}
	free(tx);
}

/* Frees every send buffer of a context whose provider is closed (or never opened). */
static void fr_free_all_tx(struct fastrmi_ctx *ctx)
{
	struct fr_tx *tx;

	while ((tx = ctx->tx_all) != NULL) {
		ctx->tx_all = tx->next_all;
		free(tx);
	}
	ctx->tx_free = NULL;
}

/*
 * Lock held. The stream is going with messages of its still in flight: the provider keeps their
 * buffers until it completes them, which for a peer that died may be never (rxm's rendezvous
 * waits for the peer to fetch the data). They leave the pool, which gets new buffers in their
 * place (up to FR_TX_ORPHANS_MAX orphans), and are freed when they complete or the context closes.
 */
static void fr_orphan_txs(struct fastrmi_ctx *ctx, uint64_t stream_id)
{
	struct fr_tx *tx;

	for (tx = ctx->tx_all; tx != NULL; tx = tx->next_all) {
		if (tx->peer == NULL || tx->orphan || tx->stream_id != stream_id)
			continue;
		tx->orphan = 1;
		ctx->tx_inflight--; /* no waiter waits for it any more (fr_block's short sleeps) */
		if (ctx->tx_orphans++ < FR_TX_ORPHANS_MAX && fr_add_tx(ctx) != 0)
			fr_report("fr_orphan_txs", "out of memory for a send buffer in place of an orphan");
	}
	fr_wake_tx_waiters(ctx);
}

/*
 * Posts tx, whose payload (len bytes after the header, for DATA) is in place: the message is
 * DATA, or CREDIT (len = bytes granted) / FIN without payload. tx is the caller's, off the pool:
 * in flight it stays so until fr_tx_done; posted no further (not now, done at once, an error)
 * it goes back to the pool. 0 sent, 1 not now (provider busy), <0 error in err.
 * The peer's doorbell is rung at once, or, when ring_later is not NULL, *ring_later is set for
 * the caller to ring once it has let go of the lock (fr_ring_peer).
 */
static int fr_post_tx(struct fastrmi_stream *s, struct fr_tx *tx, uint32_t type, size_t len,
		      int *ring_later, char *err, size_t errlen)
{
	struct fastrmi_ctx *ctx = s->ctx;
	struct fr_msg_hdr hdr = { .type = type, .len = (uint32_t)len };
	int ret;

	if (type != FR_MSG_DATA)
		len = 0;
	memcpy(tx->buf, &hdr, sizeof(hdr));
	ret = ctx->be->send(ctx, s->peer, s->peer_id, tx, sizeof(hdr) + len, err, errlen);
	if (ret >= 0 && ret != 1 && s->peer->bell != NULL) {
		/* posted: wake the thread waiting for it */
		if (ring_later != NULL)
			*ring_later = 1;
		else
			fr_bell_ring(s->peer->bell, s->peer_id);
	}
	if (ret != 0)
		fr_put_tx(ctx, tx);
	if (ret == 1) {
		ctx->eagain = 1;
		return 1;
	}
	if (ret < 0)
		return ret;
	if (ret == 0) {
		/* In flight: the buffer and the peer stay in use until fr_tx_done. */
		tx->peer = s->peer;
		tx->peer->refs++;
		tx->stream_id = s->local_id;
		tx->peer_stream_id = s->peer_id;
		tx->is_data = type == FR_MSG_DATA;
		ctx->tx_inflight++;
		if (tx->is_data)
			s->tx_inflight++;
		else
			s->ctrl_inflight++;
	}
	return 0;
}

/* Sends one message (see fr_post_tx), its payload copied into a send buffer under the lock. */
static int fr_send_msg_ringing(struct fastrmi_stream *s, uint32_t type, const void *payload, size_t len,
			       int *ring_later, char *err, size_t errlen)
{
	struct fr_tx *tx = fr_take_tx(s->ctx);

	if (tx == NULL)
		return 1;
	if (type == FR_MSG_DATA && len > 0)
		memcpy(tx->buf + sizeof(struct fr_msg_hdr), payload, len);
	return fr_post_tx(s, tx, type, len, ring_later, err, errlen);
}

/*
 * Sends len bytes of DATA (see fr_post_tx), copied into the send buffer without the lock: a
 * large copy would hold up every stream of the context. The buffer is off the pool meanwhile,
 * so no other thread takes it; only this thread sends data on the stream, so its credit holds.
 */
static int fr_send_data_copied_unlocked(struct fastrmi_stream *s, const void *payload, size_t len,
					int *ring_later, char *err, size_t errlen)
{
	struct fastrmi_ctx *ctx = s->ctx;
	struct fr_tx *tx = fr_take_tx(ctx);
	int ret;

	if (tx == NULL)
		return 1;
	pthread_mutex_unlock(&ctx->lock);
	memcpy(tx->buf + sizeof(struct fr_msg_hdr), payload, len);
	pthread_mutex_lock(&ctx->lock);
	ret = fr_post_tx(s, tx, FR_MSG_DATA, len, ring_later, err, errlen);
	if (ret != 0)
		fr_wake_tx_waiters(ctx); /* its buffer is back: a thread may have waited for one meanwhile */
	return ret;
}

static int fr_send_msg(struct fastrmi_stream *s, uint32_t type, const void *payload, size_t len,
		       char *err, size_t errlen)
{
	return fr_send_msg_ringing(s, type, payload, len, NULL, err, errlen);
}

/*
 * Rings the peer's doorbell for what the stream sent (fr_send_msg_ringing's ring_later), best
 * without the lock: the peer's thread, woken while we held it, could take this core from us
 * and leave our other threads waiting for the lock meanwhile. The stream keeps its peer (and
 * so the mapping of its doorbell) while the caller's call on it lasts.
 */
static void fr_ring_peer(struct fastrmi_stream *s, int *ring)
{
	if (*ring) {
		fr_bell_ring(s->peer->bell, s->peer_id);
		*ring = 0;
	}
}

static void fr_post_rx(struct fastrmi_stream *s)
{
	char msg[200];
	int ret;

	msg[0] = '\0'; /* a backend that fails without a word leaves "", not stack bytes */
	ret = s->ctx->be->post_recv(s->ctx, s->rx, s->local_id, msg, sizeof(msg));
	if (ret == 0) {
		s->rx->posted = 1;
		s->rx_needs_post = 0;
	} else if (ret == 1) {
		s->rx_needs_post = 1;
	} else {
		fr_stream_fail(s, FASTRMI_ERR_PROVIDER, msg);
	}
}

/* Sends what the stream owes its peer (receive, credit, FIN) as far as possible now;
 * what cannot go yet stays, and the stream goes on the context's pending list. */
static void fr_stream_flush(struct fastrmi_stream *s)
{
	struct fastrmi_ctx *ctx = s->ctx;
	char msg[200];
	int ret;

	if (s->failed || s->aborted)
		return;
	msg[0] = '\0';
	if (s->rx_needs_post)
		fr_post_rx(s);
	if (s->unreported >= FR_CREDIT_BATCH) {
		ret = fr_send_msg(s, FR_MSG_CREDIT, NULL, s->unreported, msg, sizeof(msg));
		if (ret < 0) {
			fr_stream_fail(s, FASTRMI_ERR_PROVIDER, msg);
			return;
		}
		if (ret == 0)
			s->unreported = 0;
	}
	if (s->fin_pending) {
		ret = fr_send_msg(s, FR_MSG_FIN, NULL, 0, msg, sizeof(msg));
		if (ret < 0) {
			fr_stream_fail(s, FASTRMI_ERR_PROVIDER, msg);
			return;
		}
		if (ret == 0)
			s->fin_pending = 0;
	}
	if (!s->is_pending && (s->rx_needs_post || s->unreported >= FR_CREDIT_BATCH || s->fin_pending)) {
		s->is_pending = 1;
		s->next_pending = ctx->pending;
		ctx->pending = s;
	}
}

static void fr_flush_pending(struct fastrmi_ctx *ctx)
{
	struct fastrmi_stream *list = ctx->pending;
	struct fastrmi_stream *s;

	ctx->pending = NULL;
	while (list != NULL) {
		s = list;
		list = s->next_pending;
		s->is_pending = 0;
		fr_stream_flush(s);
	}
}

/* The message in the stream's receive buffer (len bytes) arrived. */
static void fr_stream_deliver(struct fastrmi_stream *s, size_t len)
{
	struct fr_msg_hdr hdr;
	size_t tail, first;

	if (len < sizeof(hdr)) {
		fr_stream_fail(s, FASTRMI_ERR_PROTOCOL, "short message");
		return;
	}
	memcpy(&hdr, s->rx->buf, sizeof(hdr));
	switch (hdr.type) {
	case FR_MSG_DATA:
		if (hdr.len != len - sizeof(hdr) || hdr.len > FASTRMI_STREAM_WINDOW - s->ring_count - s->ring_claimed) {
			fr_stream_fail(s, FASTRMI_ERR_PROTOCOL, "peer sent more than its credit");
			return;
		}
		tail = (s->ring_head + s->ring_count) % FASTRMI_STREAM_WINDOW;
		first = FASTRMI_STREAM_WINDOW - tail;
		if (first > hdr.len)
			first = hdr.len;
		memcpy(s->ring + tail, s->rx->buf + sizeof(hdr), first);
		memcpy(s->ring, s->rx->buf + sizeof(hdr) + first, hdr.len - first);
		s->ring_count += hdr.len;
		if (s->peer->bell != NULL && s->ctx->be->sender_waits_from > 0 && len >= s->ctx->be->sender_waits_from)
			fr_bell_ring(s->peer->bell, s->peer_id);
		break;
	case FR_MSG_CREDIT:
		if (hdr.len > FASTRMI_STREAM_WINDOW - s->credits) {
			fr_stream_fail(s, FASTRMI_ERR_PROTOCOL, "peer granted more than the window");
			return;
		}
		s->credits += hdr.len;
		break;
	case FR_MSG_FIN:
		s->peer_eof = 1;
		break;
	case FR_MSG_CLOSE:
		s->peer_eof = 1;
		if (!s->peer_closed)
			s->drop_left = FR_DROP_AFTER_CLOSE;
		s->peer_closed = 1;
		break;
	default:
		fr_stream_fail(s, FASTRMI_ERR_PROTOCOL, "unknown message type");
		return;
	}
	/* The peer rang this stream's slot when it posted the message; one no larger than
	 * peer_rings_upto was whole in our queue by then, so its sleeper is awake already and a
	 * ring of ours would only cost a system call. It still counts as a wake-up. */
	fr_wake_stream_rung(s, len <= s->ctx->peer_rings_upto);
	/* The peer still reads after its FIN (it sends credit), so always post again. */
	fr_post_rx(s);
	if (s->rx_needs_post)
		fr_stream_flush(s);
}

/* Whether a draining orphan goes on after taking a message of len bytes. */
static int fr_orphan_drains_on(const struct fr_rx *rx, size_t len)
{
	struct fr_msg_hdr hdr;

	if (rx->drain_until_nsec == 0 || fr_now_nsec() >= rx->drain_until_nsec || len < sizeof(hdr))
		return 0;
	memcpy(&hdr, rx->buf, sizeof(hdr));
	return hdr.type != FR_MSG_FIN && hdr.type != FR_MSG_CLOSE;
}

/* Cancels the receives of orphans whose draining time is up (they complete as cancelled). */
static void fr_expire_orphans(struct fastrmi_ctx *ctx)
{
	uint64_t now = fr_now_nsec();

	for (struct fr_rx *rx = ctx->orphans; rx != NULL; rx = rx->next_orphan) {
		if (rx->posted && rx->drain_until_nsec != 0 && now >= rx->drain_until_nsec) {
			rx->drain_until_nsec = 0;
			ctx->be->cancel_recv(ctx, rx);
		}
	}
}

void fr_rx_done(struct fastrmi_ctx *ctx, struct fr_rx *rx, int status, size_t len, const char *msg)
{
	rx->posted = 0;
	if (rx->owner == NULL) {
		/* Its stream is gone (closed while the receive was posted). Draining, it drops
		 * the message and takes the next, until the peer's FIN or CLOSE says no more
		 * comes or the time is up. */
		if (status == 0 && fr_orphan_drains_on(rx, len) &&
		    ctx->be->post_recv(ctx, rx, rx->drain_tag, NULL, 0) == 0) {
			rx->posted = 1;
			return;
		}
		if (rx->prev_orphan != NULL)
			rx->prev_orphan->next_orphan = rx->next_orphan;
		else
			ctx->orphans = rx->next_orphan;
		if (rx->next_orphan != NULL)
			rx->next_orphan->prev_orphan = rx->prev_orphan;
		fr_rx_free(rx);
		return;
	}
	if (status != 0) {
		fr_stream_fail(rx->owner, FASTRMI_ERR_PROVIDER, msg);
		return;
	}
	fr_stream_deliver(rx->owner, len);
}

void fr_tx_done(struct fastrmi_ctx *ctx, struct fr_tx *tx, int status, const char *msg)
{
	struct fastrmi_stream *s;
	struct fr_peer *peer = tx->peer;

	if (tx->orphan) {
		/* Its stream is gone, and the pool has a buffer in its place. */
		ctx->tx_orphans--;
		fr_free_tx(ctx, tx);
		fr_peer_unref(ctx, peer);
		return;
	}
	ctx->tx_inflight--;
	/* A send the provider held back (a full queue, UCX's wire-up) reached the peer only now,
	 * after the ring at posting: ring again, or the peer may sleep through it. */
	if (status == 0 && peer->bell != NULL)
		fr_bell_ring(peer->bell, tx->peer_stream_id);
	tx->peer = NULL;
	fr_put_tx(ctx, tx);
	s = fr_stream_find(ctx, tx->stream_id);
	if (s != NULL) {
		if (tx->is_data)
			s->tx_inflight--;
		else
			s->ctrl_inflight--;
		if (status != 0)
			fr_stream_fail(s, FASTRMI_ERR_PROVIDER, msg);
		fr_wake_stream(s);
	}
	fr_wake_tx_waiters(ctx);
	fr_peer_unref(ctx, peer);
}

/* ---- peers --------------------------------------------------------------------------- */

static struct fr_peer *fr_peer_get(struct fastrmi_ctx *ctx, const void *addr, size_t addr_len,
				   char *err, size_t errlen, int *code)
{
	struct fr_peer *peer;
	int ret;

	for (peer = ctx->peers; peer != NULL; peer = peer->next) {
		if (peer->addr_len == addr_len && memcmp(peer->addr, addr, addr_len) == 0 &&
		    !peer->failed) {
			if (peer->refs == 0 && ctx->be->peer_reuse != NULL) {
				ret = ctx->be->peer_reuse(ctx, peer, err, errlen);
				if (ret != 0) {
					*code = ret;
					return NULL;
				}
			}
			peer->refs++;
			return peer;
		}
	}
	if (ctx->peer_limit > 0 && ctx->npeers >= ctx->peer_limit) {
		fr_seterr(err, errlen, "the %s context reaches %u peers already, the most it can hold: open a new "
			  "context for new peers (fastrmi_ctx_peers_left)", ctx->be->name, ctx->npeers);
		*code = FASTRMI_ERR_FULL;
		return NULL;
	}
	peer = calloc(1, sizeof(*peer));
	if (peer == NULL || (peer->addr = malloc(addr_len)) == NULL) {
		free(peer);
		fr_seterr(err, errlen, "out of memory for a peer");
		*code = FASTRMI_ERR_NOMEM;
		return NULL;
	}
	memcpy(peer->addr, addr, addr_len);
	peer->addr_len = addr_len;
	ret = ctx->be->peer_open(ctx, peer, err, errlen);
	if (ret != 0) {
		free(peer->addr);
		free(peer);
		*code = ret;
		return NULL;
	}
	peer->refs = 1;
	peer->next = ctx->peers;
	ctx->peers = peer;
	ctx->npeers++;
	return peer;
}

/* Frees the peer when neither a stream nor a message in flight uses it (unless the
 * backend keeps idle peers: then it waits, unused, for the next stream to it). */
void fr_peer_unref(struct fastrmi_ctx *ctx, struct fr_peer *peer)
{
	struct fr_peer **p;

	if (peer == NULL || --peer->refs > 0)
		return;
	if (ctx->be->keeps_idle_peers) {
		/* Kept for its address's place only (a failed one too: its place cannot be reused either);
		 * what else it holds (a doorbell) goes till it is used again. */
		if (ctx->be->peer_idle != NULL)
			ctx->be->peer_idle(ctx, peer);
		return;
	}
	for (p = &ctx->peers; *p != NULL; p = &(*p)->next) {
		if (*p == peer) {
			*p = peer->next;
			break;
		}
	}
	ctx->npeers--; /* a backend that keeps idle peers never gets here: their places stay counted */
	ctx->be->peer_close(ctx, peer);
	free(peer->addr);
	free(peer);
}

/* ---- progress and waiting ----------------------------------------------------------- */

/* Polls the provider once; <0 when the context broke (message in err). */
static int fr_progress(struct fastrmi_ctx *ctx, char *err, size_t errlen)
{
	int n;

	if (ctx->failed) {
		fr_seterr(err, errlen, "%s", ctx->fail_msg);
		return FASTRMI_ERR_PROVIDER;
	}
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
 * Blocks until something may have happened (lock held on entry and return). The first
 * thread here becomes the poller and blocks in the backend's wait object without the
 * lock; the others sleep on their stream's condition variable (see fr_wake_stream).
 *
 * While the provider said "busy, try again" or messages of ours are in flight, the
 * poller sleeps only briefly (1 ms, doubling up to FR_BUSY_BLOCK_MAX_MS while nothing
 * happens): a peer does not wake us when it frees room in a full queue (shm, UCX posix
 * FIFOs) or takes a large message of ours, so we look again. An idle context has
 * neither and sleeps until woken.
 */
static void fr_sleeping_add(struct fastrmi_stream *s)
{
	struct fastrmi_ctx *ctx = s->ctx;

	if (s->sleepers++ == 0) {
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

static int fr_recv_ready(const struct fastrmi_stream *s);
static int fr_send_ready(const struct fastrmi_stream *s);
static int fr_tx_ready(const struct fastrmi_stream *s);

/*
 * A context with a doorbell: the thread sleeps on its stream's slot, which the peer rings when
 * it sends to the stream (and this process when it delivered, aborted or freed something the
 * stream waits for): one wake-up, straight to this thread. Lock held on entry and return.
 */
static void fr_block_on_bell(struct fastrmi_stream *s, fr_ready_fn ready, int timeout_ms)
{
	struct fastrmi_ctx *ctx = s->ctx;
	struct fr_bell_sleep sleep;

	/* A backend that cannot ring for everything it does on its own (UCX) looks now and then. */
	if (ctx->bell_look_ms > 0 && (timeout_ms < 0 || timeout_ms > ctx->bell_look_ms))
		timeout_ms = ctx->bell_look_ms;
	fr_sleeping_add(s);
	/* Crowded: on the slot's pipe, whose sync wake-up keeps a call's threads on one CPU (doorbell.c). */
	fr_bell_arm(ctx->bell, s->local_id, fr_wait_machine_crowded(fr_now_nsec()), &sleep);
	/* What was sent before the peer saw us counted in is in the queue now: look once more. */
	if (fr_progress(ctx, NULL, 0) == 0 && !ready(s) && !s->aborted && !s->failed) {
		pthread_mutex_unlock(&ctx->lock);
		fr_bell_wait(ctx->bell, s->local_id, &sleep, timeout_ms);
		/* Awake: counted out before waiting for the lock (which may take a while on a busy
		 * context), so that rings meanwhile cost the ringers no system call. */
		fr_bell_disarm(ctx->bell, s->local_id, &sleep);
		pthread_mutex_lock(&ctx->lock);
	} else {
		fr_bell_disarm(ctx->bell, s->local_id, &sleep);
	}
	fr_sleeping_remove(s);
}

static void fr_block(struct fastrmi_stream *s, fr_ready_fn ready, uint64_t deadline)
{
	struct fastrmi_ctx *ctx = s->ctx;
	uint64_t now = fr_now_nsec();
	int timeout_ms = -1;
	struct timespec ts;
	char msg[200];
	int ret;

	msg[0] = '\0';
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
		return;
	}
	if (!ctx->poller) {
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
			ctx->be->block(ctx, timeout_ms);
			pthread_mutex_lock(&ctx->lock);
		}
		ctx->be->disarm(ctx);
		ctx->poller = 0;
		ctx->poller_stream = NULL;
		ctx->eagain = 0;
		/* A sleeping waiter takes over the wait object. */
		if (ctx->sleeping != NULL)
			pthread_cond_broadcast(&ctx->sleeping->cond);
		return;
	}

	fr_sleeping_add(s);
	if (timeout_ms < 0) {
		pthread_cond_wait(&s->cond, &ctx->lock);
	} else {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += timeout_ms / 1000;
		ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->cond, &ctx->lock, &ts);
	}
	fr_sleeping_remove(s);
}

/*
 * A pause between two polls of a spinning wait. Not sched_yield: that is a system call per
 * poll, and with another thread runnable (a JIT compiler, a GC) it hands this core over for a
 * time slice, which is what spinning is there to avoid.
 */
static void fr_relax(void)
{
	for (int i = 0; i < 16; i++) {
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
 * Waits (lock held) until ready(s). 0 when ready, else a negative code (message in err).
 * Spins first for as long as the stream's budget says (wait.h), and stops spinning early when
 * the context woke another waiting thread meanwhile: in a nested call (a callback) that thread
 * is the one we wait for, and it needs the core we would spin on. Adaptive waiting lets only so
 * many threads of a context spin at once (fr_wait_spinners_max): the others block at once.
 */
static int fr_wait_loop(struct fastrmi_stream *s, fr_ready_fn ready, uint64_t deadline,
			char *err, size_t errlen)
{
	struct fastrmi_ctx *ctx = s->ctx;
	struct fr_wait_budget *budget = ready == fr_recv_ready ? &s->rx_wait : &s->tx_wait;
	int adaptive = ctx->wait_mode == FASTRMI_WAIT_ADAPTIVE;
	uint64_t start = 0, spin = 0, now;
	unsigned long wakes = 0;
	int waiting = 0, blocked = 0, counted = 0;
	int ret;

	for (;;) {
		ret = fr_progress(ctx, err, errlen);
		if (s->aborted) {
			ret = fr_stream_error(s, err, errlen);
			break;
		}
		if (ready(s)) {
			if (waiting && adaptive)
				fr_wait_learn(budget, ctx->spin_nsec, fr_now_nsec() - start, !blocked);
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
			fr_seterr(err, errlen, "stream %llu: timed out", (unsigned long long)s->local_id);
			ret = FASTRMI_ERR_TIMEOUT;
			break;
		}
		if (!waiting) {
			/* A wait starts: a call that found its data at once was none. */
			waiting = 1;
			start = now;
			wakes = ctx->wakes;
			spin = fr_wait_spin_for(budget, (enum fastrmi_wait_mode)ctx->wait_mode, ctx->spin_nsec,
						adaptive && ctx->spin_nsec > 0 && fr_wait_machine_crowded(now));
			if (spin > 0 && adaptive) {
				if (ctx->spinners >= fr_wait_spinners_max()) {
					spin = 0;
				} else {
					ctx->spinners++;
					counted = 1;
				}
			}
		}
		if (!blocked && now - start < spin && ctx->wakes == wakes) {
			/* Spin, but let other threads of this context at the lock. */
			pthread_mutex_unlock(&ctx->lock);
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
		fr_block(s, ready, deadline);
	}
	if (counted)
		ctx->spinners--;
	return ret;
}

static int fr_wait(struct fastrmi_stream *s, fr_ready_fn ready, uint64_t deadline,
		   char *err, size_t errlen)
{
	struct fastrmi_ctx *ctx = s->ctx;
	int ret = fr_wait_loop(s, ready, deadline, err, errlen);

	/* Leaving with nobody polling while others sleep: one of them must take over, or
	 * they would sleep through the events they wait for. */
	if (ctx->bell == NULL && !ctx->poller && ctx->sleeping != NULL)
		pthread_cond_broadcast(&ctx->sleeping->cond);
	return ret;
}

/*
 * A read copying out of the window without the lock keeps the stream's reading to itself until
 * it is done: its claimed bytes must stay just before ring_head, where deliveries never write.
 */
static int fr_recv_ready(const struct fastrmi_stream *s)
{
	return s->ring_claimed == 0 && (s->ring_count > 0 || s->peer_eof);
}

static int fr_send_ready(const struct fastrmi_stream *s)
{
	/* A closed peer never grants again: not ready, and the wait ends in its error. */
	return s->credits > 0 && !s->peer_closed && s->ctx->tx_free != NULL && !s->ctx->eagain;
}

static int fr_granted(const struct fastrmi_stream *s)
{
	return s->unreported < FR_CREDIT_BATCH && s->ctrl_inflight == 0;
}

static int fr_tx_drained(const struct fastrmi_stream *s)
{
	return s->tx_inflight == 0;
}

static int fr_tx_ready(const struct fastrmi_stream *s)
{
	return s->ctx->tx_free != NULL && !s->ctx->eagain;
}

/* ---- context ------------------------------------------------------------------------- */

static void fr_ctx_free_locks(struct fastrmi_ctx *ctx)
{
	fr_report_errno("pthread_condattr_destroy", pthread_condattr_destroy(&ctx->condattr));
	fr_report_errno("pthread_mutex_destroy(context lock)", pthread_mutex_destroy(&ctx->lock));
}

/*
 * The context lock spins a little (glibc's adaptive mutex) before it sleeps: its holders keep it
 * for microseconds, and with many threads on one context (8 clients on 2 cores) a sleeping
 * mutex turned most contention into futex wake-ups between them (0.17-0.19 waits and 0.34-0.37
 * wakes per call and JVM on ofi:shm star8; adaptive: 0.03 and 0.08, at the same CPU per call).
 */
static int fr_context_lock_init(pthread_mutex_t *lock, char *err, size_t errlen)
{
	pthread_mutexattr_t attr;
	int ret;

	ret = fr_check_init(pthread_mutexattr_init(&attr), "pthread_mutexattr_init(context lock)", err, errlen);
	if (ret != 0)
		return ret;
	ret = fr_check_init(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP),
			    "pthread_mutexattr_settype(context lock, adaptive)", err, errlen);
	if (ret == 0)
		ret = fr_check_init(pthread_mutex_init(lock, &attr), "pthread_mutex_init(context lock)", err, errlen);
	fr_report_errno("pthread_mutexattr_destroy(context lock)", pthread_mutexattr_destroy(&attr));
	return ret;
}

FASTRMI_API int fastrmi_ctx_open(int backend, const char *provider, uint32_t spin_usec,
				 fastrmi_ctx **ctxp, char *err, size_t errlen)
{
	const struct fr_backend *be;
	struct fastrmi_ctx *ctx;
	unsigned i;
	int ret;

	fr_clearerr(err, errlen);
	if (ctxp == NULL) {
		fr_seterr(err, errlen, "fastrmi_ctx_open: ctx is NULL");
		return FASTRMI_ERR_INVALID;
	}
	*ctxp = NULL;
	switch (backend) {
	case FASTRMI_BACKEND_OFI:
		be = &fr_ofi_backend;
		break;
	case FASTRMI_BACKEND_UCX:
		be = &fr_ucx_backend;
		break;
	default:
		fr_seterr(err, errlen, "fastrmi_ctx_open: unknown backend %d (FASTRMI_BACKEND_OFI %d or "
			  "FASTRMI_BACKEND_UCX %d)", backend, FASTRMI_BACKEND_OFI, FASTRMI_BACKEND_UCX);
		return FASTRMI_ERR_INVALID;
	}

	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		fr_seterr(err, errlen, "fastrmi_ctx_open: out of memory");
		return FASTRMI_ERR_NOMEM;
	}
	ctx->be = be;
	ctx->chunk = FR_CHUNK;
	ctx->spin_nsec = (uint64_t)spin_usec * 1000u;
	for (i = 0; i < FR_TX_SLOTS; i++) {
		if (fr_add_tx(ctx) != 0) {
			fr_free_all_tx(ctx);
			free(ctx);
			fr_seterr(err, errlen, "fastrmi_ctx_open: out of memory for send buffers");
			return FASTRMI_ERR_NOMEM;
		}
	}

	ret = fr_context_lock_init(&ctx->lock, err, errlen);
	if (ret != 0) {
		fr_free_all_tx(ctx);
		free(ctx);
		return ret;
	}
	/* Timed waits use CLOCK_MONOTONIC, like every deadline here. */
	ret = fr_check_init(pthread_condattr_init(&ctx->condattr), "pthread_condattr_init", err, errlen);
	if (ret != 0) {
		fr_report_errno("pthread_mutex_destroy(context lock)", pthread_mutex_destroy(&ctx->lock));
		fr_free_all_tx(ctx);
		free(ctx);
		return ret;
	}
	ret = fr_check_init(pthread_condattr_setclock(&ctx->condattr, CLOCK_MONOTONIC),
			    "pthread_condattr_setclock(CLOCK_MONOTONIC)", err, errlen);
	if (ret == 0) {
		ret = be->open(ctx, provider, err, errlen);
		if (ret != 0)
			be->close(ctx);
	}
	if (ret != 0) {
		fr_ctx_free_locks(ctx);
		fr_free_all_tx(ctx);
		free(ctx);
		return ret;
	}
	*ctxp = ctx;
	return 0;
}

FASTRMI_API int fastrmi_ctx_set_wait(fastrmi_ctx *ctx, int mode, int32_t usable_cpus, char *err, size_t errlen)
{
	fr_clearerr(err, errlen);
	if (ctx == NULL || (mode != FASTRMI_WAIT_ADAPTIVE && mode != FASTRMI_WAIT_SPIN && mode != FASTRMI_WAIT_BLOCK)) {
		fr_seterr(err, errlen, "fastrmi_ctx_set_wait: %s", ctx == NULL ? "context is NULL" : "unknown mode");
		return FASTRMI_ERR_INVALID;
	}
	if (usable_cpus > 0)
		fr_wait_set_usable_cpus(usable_cpus);
	pthread_mutex_lock(&ctx->lock);
	ctx->wait_mode = mode;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

FASTRMI_API int fastrmi_ctx_address(fastrmi_ctx *ctx, void *buf, size_t *len)
{
	if (ctx == NULL || len == NULL)
		return FASTRMI_ERR_INVALID;
	if (buf == NULL || *len < ctx->addr_len) {
		*len = ctx->addr_len;
		return FASTRMI_ERR_INVALID;
	}
	memcpy(buf, ctx->addr, ctx->addr_len);
	*len = ctx->addr_len;
	return 0;
}

static void fr_stream_free(struct fastrmi_stream *s);

FASTRMI_API int64_t fastrmi_ctx_peers_left(fastrmi_ctx *ctx)
{
	int64_t left;

	if (ctx == NULL)
		return 0;
	pthread_mutex_lock(&ctx->lock);
	left = ctx->peer_limit == 0 ? -1 : ctx->npeers >= ctx->peer_limit ? 0 : (int64_t)(ctx->peer_limit - ctx->npeers);
	pthread_mutex_unlock(&ctx->lock);
	return left;
}

FASTRMI_API int fastrmi_ctx_peer_can_block_others(fastrmi_ctx *ctx)
{
	return ctx != NULL && ctx->peer_can_block_others;
}

FASTRMI_API int fastrmi_ctx_may_spin_on_dead_peer(fastrmi_ctx *ctx)
{
	return ctx != NULL && ctx->may_spin_on_dead_peer;
}

FASTRMI_API int64_t fastrmi_ctx_peers_gone(fastrmi_ctx *ctx)
{
	struct fr_peer *peer;
	int64_t gone = 0;

	if (ctx == NULL)
		return 0;
	pthread_mutex_lock(&ctx->lock);
	for (peer = ctx->peers; peer != NULL; peer = peer->next)
		if (peer->refs == 0 &&
		    (peer->failed || (ctx->be->peer_is_gone != NULL && ctx->be->peer_is_gone(ctx, peer))))
			gone++;
	pthread_mutex_unlock(&ctx->lock);
	return gone;
}

FASTRMI_API void fastrmi_ctx_close(fastrmi_ctx *ctx)
{
	struct fr_rx *rx;
	unsigned i;

	if (ctx == NULL)
		return;
	pthread_mutex_lock(&ctx->lock);
	for (i = 0; i < FR_STREAM_BUCKETS; i++)
		while (ctx->buckets[i] != NULL)
			fr_stream_free(ctx->buckets[i]);
	/* Closes peers still held by messages in flight, then the endpoint/worker: after
	 * that the provider writes no buffer of ours, so they can be freed. */
	while (ctx->peers != NULL) {
		struct fr_peer *peer = ctx->peers;

		ctx->peers = peer->next;
		ctx->be->peer_close(ctx, peer);
		free(peer->addr);
		free(peer);
	}
	ctx->be->close(ctx);
	while ((rx = ctx->orphans) != NULL) {
		ctx->orphans = rx->next_orphan;
		fr_rx_free(rx);
	}
	pthread_mutex_unlock(&ctx->lock);
	fr_ctx_free_locks(ctx);
	fr_free_all_tx(ctx);
	free(ctx);
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
	start = s->ring_head;
	s->ring_head = (s->ring_head + n) % FASTRMI_STREAM_WINDOW;
	s->ring_count -= n;
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
	/*
	 * Small messages keep to the first pages (and cache lines). No claim is out: only this read
	 * could have made one (fr_recv_ready).
	 */
	if (s->ring_count == 0)
		s->ring_head = 0;
	s->unreported += n;
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

FASTRMI_API int64_t fastrmi_wait_readable(fastrmi_stream *s, int timeout_ms, char *err, size_t errlen)
{
	int64_t ret;

	fr_clearerr(err, errlen);
	if (s == NULL) {
		fr_seterr(err, errlen, "fastrmi_wait_readable: stream is NULL");
		return FASTRMI_ERR_INVALID;
	}
	pthread_mutex_lock(&s->ctx->lock);
	ret = fr_wait(s, fr_recv_ready, fr_deadline(timeout_ms), err, errlen);
	if (ret == 0)
		ret = (int64_t)s->ring_count;
	pthread_mutex_unlock(&s->ctx->lock);
	return ret;
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
static void fr_stream_free(struct fastrmi_stream *s)
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
