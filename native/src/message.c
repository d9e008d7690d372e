/*
 * message.c - a stream's messages: the context's send buffers (and those orphaned by a stream
 * freed with sends in flight), posting DATA, CREDIT, FIN and CLOSE, taking in what arrives and
 * granting credit back. The framing and flow control are described in stream.c.
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
int fr_add_tx(struct fastrmi_ctx *ctx)
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
void fr_free_all_tx(struct fastrmi_ctx *ctx)
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
void fr_orphan_txs(struct fastrmi_ctx *ctx, uint64_t stream_id)
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
int fr_send_msg_ringing(struct fastrmi_stream *s, uint32_t type, const void *payload, size_t len,
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
int fr_send_data_copied_unlocked(struct fastrmi_stream *s, const void *payload, size_t len,
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

int fr_send_msg(struct fastrmi_stream *s, uint32_t type, const void *payload, size_t len,
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
void fr_ring_peer(struct fastrmi_stream *s, int *ring)
{
	if (*ring) {
		fr_bell_ring(s->peer->bell, s->peer_id);
		*ring = 0;
	}
}

/*
 * Whether the stream's next message goes straight into its window: amid a transfer (a large
 * message within FR_RECV_IN_WINDOW_NSEC), on a backend that receives in pieces, while the window
 * has room for a whole chunk after its tail. The room is that of the receive buffer, so any message
 * the buffer takes fits: a peer's longer one fails the receive as it would there. The tail stays
 * where it is until the message comes (fr_ring_taken), and the header lands in the buffer.
 */
static void fr_rx_aim(struct fastrmi_stream *s)
{
	struct fr_rx *rx = s->rx;
	size_t tail, first;

	rx->in_window = 0;
	rx->pieces = 0;
	if (!s->ctx->recv_in_pieces || s->rx_bulk_at == 0 ||
	    FASTRMI_STREAM_WINDOW - s->ring_count - s->ring_claimed < FR_CHUNK ||
	    fr_now_nsec() - s->rx_bulk_at > FR_RECV_IN_WINDOW_NSEC)
		return;
	tail = (s->ring_head + s->ring_count) % FASTRMI_STREAM_WINDOW;
	first = FASTRMI_STREAM_WINDOW - tail;
	if (first > FR_CHUNK)
		first = FR_CHUNK;
	rx->piece[0] = (struct iovec){ .iov_base = rx->buf, .iov_len = sizeof(struct fr_msg_hdr) };
	rx->piece[1] = (struct iovec){ .iov_base = s->ring + tail, .iov_len = first };
	rx->pieces = 2;
	if (first < FR_CHUNK)
		rx->piece[rx->pieces++] = (struct iovec){ .iov_base = s->ring, .iov_len = FR_CHUNK - first };
	rx->in_window = 1;
	rx->window_at = tail;
}

void fr_post_rx(struct fastrmi_stream *s)
{
	char msg[200];
	int ret;

	msg[0] = '\0'; /* a backend that fails without a word leaves "", not stack bytes */
	fr_rx_aim(s);
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
void fr_stream_flush(struct fastrmi_stream *s)
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

void fr_flush_pending(struct fastrmi_ctx *ctx)
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
		if (s->rx->in_window) {
			/* Landed in place: the tail stayed where the receive was posted (fr_ring_taken). */
			if (s->rx->window_at != tail) {
				fr_stream_fail(s, FASTRMI_ERR_PROTOCOL, "internal: the window's tail moved under a receive");
				return;
			}
			s->ctx->receive_counts.bytes_in_window += hdr.len;
		} else {
			first = FASTRMI_STREAM_WINDOW - tail;
			if (first > hdr.len)
				first = hdr.len;
			memcpy(s->ring + tail, s->rx->buf + sizeof(hdr), first);
			memcpy(s->ring, s->rx->buf + sizeof(hdr) + first, hdr.len - first);
			s->ctx->receive_counts.bytes_through_buffer += hdr.len;
		}
		s->ring_count += hdr.len;
		if (hdr.len >= FR_WAIT_STREAMING_BYTES)
			s->rx_bulk_at = fr_now_nsec();
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
	fr_wake_stream_rung(s, len <= s->ctx->peer_rings_upto, NULL);
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
void fr_expire_orphans(struct fastrmi_ctx *ctx)
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
		rx->in_window = 0; /* what it drains is dropped: into its buffer */
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
