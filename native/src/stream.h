/*
 * stream.h - what the byte-stream layer's files share: the stream, its constants and the calls
 * one file makes into another (stream.c, message.c, progress.c, context.c; stream.c says how the
 * layer works). Internal: the API is fastrmi.h.
 */
#ifndef FASTRMI_STREAM_H
#define FASTRMI_STREAM_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "internal.h"
#include "wait.h"

/* Credit goes back to the sender once this much has been consumed. */
#define FR_CREDIT_BATCH (FASTRMI_STREAM_WINDOW / 4)
/* A read or send of at least this many bytes copies them out of the ring or into the send buffer
 * without the context's lock (a few microseconds of memcpy); a smaller one is quicker done than
 * the lock taken again. */
#define FR_COPY_UNLOCKED_MIN (16 * 1024)
/*
 * A stream that received a DATA message of FR_WAIT_STREAMING_BYTES or more within this time
 * receives into its window (fr_rx_aim): its transfer's messages skip the receive buffer's copy.
 * Only such a stream: a receive posted into the window's tail keeps the window from starting over
 * at its first pages (fr_ring_taken), where a stream of small messages stays.
 */
#define FR_RECV_IN_WINDOW_NSEC (50u * 1000000u)
/* Longest a poller blocks while it can only learn of progress by looking (see fr_block). */
#define FR_BUSY_BLOCK_MAX_MS 64
/* Arms in a row answered "busy" with nothing delivered, before we sleep anyway. */
#define FR_BUSY_ARMS_MAX 16
#define FR_FOREVER UINT64_MAX
/* The longest spin a nudge buys (fastrmi_stream_nudge): a guard; the binding asks for less. */
#define FR_NUDGED_SPIN_MAX_NSEC 1000000u
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
	uint64_t rx_waited_nsec; /* moving average of its waits for data, short or long */
	uint64_t rx_wait_since;  /* when its current wait for data began (0: none) */
	uint64_t rx_data_at;     /* when a receive last took data in by a poll, waited for or not (0: none yet) */
	uint64_t rx_bulk_at;     /* when a DATA message of FR_WAIT_STREAMING_BYTES or more last came: its writer is mid-write (0: none) */
	uint64_t nudged_until;   /* another thread said its data is due: spin for it until then (0: no) */
	int nudging;             /* its reader nudged another stream's and waits without spinning */
	int spoke;               /* it sent data (before it received any: it does not serve) */
	int serves;              /* its peer spoke first: it carries requests this end answers */
	pthread_cond_t cond;
	unsigned sleepers;
	uint64_t asleep_since;  /* when its first sleeper fell asleep (on ctx->sleeping, newest first) */
	int wants_tx;           /* its waiter needs a free send buffer */
	struct fastrmi_stream *next_sleeping;
	struct fastrmi_stream *prev_sleeping;

	int aborted;
	int failed;             /* a FASTRMI_ERR_* once the stream broke */
	char fail_msg[256];
};

typedef int (*fr_ready_fn)(const struct fastrmi_stream *s);

static inline uint64_t fr_now_nsec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The deadline of a call that must not wait (timeout_ms 0): a poll, which the bindings make
 * several times a call (their critical receives and sends). Finding nothing is its answer, not an
 * error: it gets no message, whose formatting cost a warm null call's threads 5% of their time.
 */
#define FR_DONT_WAIT 0u

static inline uint64_t fr_deadline(int timeout_ms)
{
	if (timeout_ms < 0)
		return FR_FOREVER;
	if (timeout_ms == 0)
		return FR_DONT_WAIT;
	return fr_now_nsec() + (uint64_t)timeout_ms * 1000000u;
}

/* stream.c: the stream table, waking and failing, pages, and the stream API */
void fr_rx_free(struct fr_rx *rx);
int fr_stream_error(const struct fastrmi_stream *s, char *err, size_t errlen);
void fr_stream_fail(struct fastrmi_stream *s, int code, const char *msg);
struct fastrmi_stream *fr_stream_find(struct fastrmi_ctx *ctx, uint64_t id);
void fr_stream_free(struct fastrmi_stream *s);
void fr_wake_all(struct fastrmi_ctx *ctx);
void fr_wake_stream(struct fastrmi_stream *s);
void fr_wake_stream_rung(struct fastrmi_stream *s, int peer_rang, int *ring_later);
void fr_wake_tx_waiters(struct fastrmi_ctx *ctx);
/*
 * Nested calls. A stream whose peer spoke first serves: it carries requests that this end
 * answers (an accepted RMI connection). A thread that took a request off such a stream and has
 * not yet written to it is inside a call, and a wait of its for data on a stream that does not
 * serve is a nested call's (a callback, a DGC call while unmarshalling): its reply comes after
 * the peer's whole turn, which a wake-up of ours would only lengthen (fr_wait_nested_spin_for).
 * Lock held for the first two.
 */
void fr_stream_took(struct fastrmi_stream *s, size_t n);
void fr_stream_sends(struct fastrmi_stream *s);
int fr_stream_wait_is_nested(const struct fastrmi_stream *s);

/* message.c: messages, send buffers, credit and delivery */
int fr_add_tx(struct fastrmi_ctx *ctx);
void fr_expire_orphans(struct fastrmi_ctx *ctx);
void fr_flush_pending(struct fastrmi_ctx *ctx);
void fr_free_all_tx(struct fastrmi_ctx *ctx);
void fr_orphan_txs(struct fastrmi_ctx *ctx, uint64_t stream_id);
void fr_post_rx(struct fastrmi_stream *s);
void fr_ring_peer(struct fastrmi_stream *s, int *ring);
int fr_send_data_copied_unlocked(struct fastrmi_stream *s, const void *payload, size_t len,
				 int *ring_later, char *err, size_t errlen);
int fr_send_msg(struct fastrmi_stream *s, uint32_t type, const void *payload, size_t len,
		char *err, size_t errlen);
int fr_send_msg_ringing(struct fastrmi_stream *s, uint32_t type, const void *payload, size_t len,
			int *ring_later, char *err, size_t errlen);
void fr_stream_flush(struct fastrmi_stream *s);

/* progress.c: progress and waiting */
/* Whether a blocking thread may take the provider's wait object (fr_block). */
enum fr_may_poll {
	FR_LEAVE_POLL,         /* it just polled for other threads: leave it to them */
	FR_MAY_POLL,           /* when nobody polls */
	FR_POLL_IF_LONG_FREE,  /* the deputy's look: when nobody has polled for a while */
	FR_POLLED,             /* it polled: FR_LEAVE_POLL if what it woke for was others' */
};
enum fr_may_poll fr_block(struct fastrmi_stream *s, fr_ready_fn ready, uint64_t deadline,
			  enum fr_may_poll may_poll);
int fr_granted(const struct fastrmi_stream *s);
int fr_progress(struct fastrmi_ctx *ctx, char *err, size_t errlen);
int fr_recv_ready(const struct fastrmi_stream *s);
int fr_send_ready(const struct fastrmi_stream *s);
int fr_tx_drained(const struct fastrmi_stream *s);
int fr_tx_ready(const struct fastrmi_stream *s);
int fr_wait(struct fastrmi_stream *s, fr_ready_fn ready, uint64_t deadline,
	    char *err, size_t errlen);

/* context.c: the context's life and its peers */
struct fr_peer *fr_peer_get(struct fastrmi_ctx *ctx, const void *addr, size_t addr_len,
			    char *err, size_t errlen, int *code);

#endif /* FASTRMI_STREAM_H */
