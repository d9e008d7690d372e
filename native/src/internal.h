/*
 * internal.h - helpers shared by the sources of libfastrmi.so; not part of the API.
 * Everything declared here has hidden visibility (the library is built with
 * -fvisibility=hidden), so none of it is exported.
 */
#ifndef FASTRMI_INTERNAL_H
#define FASTRMI_INTERNAL_H

#include <stddef.h>

#include "fastrmi.h"

#if defined(__GNUC__)
#define FR_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define FR_PRINTF(fmt, args)
#endif

/*
 * Writes a printf-style message into the caller's error buffer, truncated to fit
 * and always NUL-terminated. Does nothing when err is NULL or errlen is 0.
 */
void fr_seterr(char *err, size_t errlen, const char *fmt, ...) FR_PRINTF(3, 4);

/* Sets the caller's error buffer to "" (when there is one). */
void fr_clearerr(char *err, size_t errlen);

/* A failure message as given, or "(no message)" when there is none: never NULL for "%s". */
const char *fr_text(const char *msg);

/*
 * Reports a failed teardown or background call on stderr, naming the call: nobody is left to
 * return it to. fr_report_errno takes an errno value (pthread_* return one).
 */
void fr_report(const char *call, const char *why);
void fr_report_errno(const char *call, int errnum);

/*
 * Checks a pthread_*_init return (an errno value): 0, or the FASTRMI_ERR_* for it with a
 * message naming the call in err.
 */
int fr_check_init(int errnum, const char *call, char *err, size_t errlen);
/* 0, or why the library's load could not keep its libraries off the JVM's signals (signals.c). */
int fr_check_signal_settings(char *err, size_t errlen);

/* ---- byte streams: shared by stream.c and the backends --------------------------- */

#include <pthread.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rdma/fabric.h>
#include <ucp/api/ucp.h>

/* Largest payload of one message; a send is cut into messages of at most this. */
#define FR_CHUNK (256 * 1024)
/* Per-context pool of send buffers (messages in flight at once, all streams). */
#define FR_TX_SLOTS 32
/* Send buffers still in flight when their stream was freed (a peer that died with our message
 * unfetched: rxm's rendezvous never completes then) are replaced in the pool up to this many
 * (256 KiB each), so that a dead peer's messages cannot take the context's pool with them. */
#define FR_TX_ORPHANS_MAX 512
/* Buckets of the stream-id hash table of a context. */
#define FR_STREAM_BUCKETS 256

/* Message types on the wire. */
enum fr_msg_type {
	FR_MSG_DATA = 1,   /* len payload bytes follow */
	FR_MSG_CREDIT = 2, /* the reader consumed len more bytes: the sender may send them */
	FR_MSG_FIN = 3,    /* no more data on this stream */
	FR_MSG_CLOSE = 4,  /* the stream is closed: it reads nothing more (TCP's reset for a writer) */
};

/*
 * Header of every message; the message is sent with tag = the receiving stream's id,
 * so each stream receives its own messages in order (one receive posted at a time).
 * Byte order of the sender: both sides run on hosts of one byte order.
 */
struct fr_msg_hdr {
	uint32_t type;
	uint32_t len;
};

#define FR_MSG_MAX (sizeof(struct fr_msg_hdr) + FR_CHUNK)

enum fr_op_kind { FR_OP_RX = 1, FR_OP_TX = 2 };

/* First member of every operation the provider completes: libfabric context / UCX request. */
struct fr_op {
	struct fi_context2 fi;  /* libfabric op context (FI_CONTEXT2 mode) */
	struct fastrmi_ctx *ctx;
	void *ucx_req;          /* UCX request while in flight */
	enum fr_op_kind kind;
	struct fr_op *next_done; /* UCX: completed, waiting for fr_ucx_progress */
	int status;             /* UCX: 0 or a ucs_status_t */
	size_t length;          /* UCX: bytes received */
};

struct fastrmi_stream;
struct fr_peer;

/* A receive into a stream's window: the header, the window up to its end, the window from its start. */
#define FR_RX_PIECES 3

/*
 * One posted receive: into a stream's bounce buffer, or (in_window) the header into buf and the
 * payload straight into the free part of the stream's window (fr_post_rx); orphaned when its
 * stream closes.
 */
struct fr_rx {
	struct fr_op op;
	struct fastrmi_stream *owner; /* NULL: orphan, freed by its completion */
	struct fr_rx *next_orphan;
	struct fr_rx *prev_orphan;
	int posted;
	int in_window;
	size_t window_at;        /* in_window: where the payload lands, the window's tail at posting */
	struct iovec piece[FR_RX_PIECES]; /* in_window: where each part of the message lands */
	int pieces;              /* in_window: the parts used, 2 or 3 (the payload wraps) */
	ucp_dt_iov_t ucx_piece[FR_RX_PIECES]; /* UCX: piece as UCX takes it, which reads it until completion */
	/* An orphan posted into its stream's window: the window, freed with the orphan. */
	unsigned char *window;
	/* An orphan that drains its closed stream's messages until this time (0: it does not):
	 * the peer's data in flight is taken and dropped, so it does not wait on us. */
	uint64_t drain_tag;
	uint64_t drain_until_nsec;
	unsigned char buf[FR_MSG_MAX];
};

/* One send buffer of the context's pool. */
struct fr_tx {
	struct fr_op op;
	struct fr_tx *next_free;
	struct fr_tx *next_all; /* every send buffer of the context, pooled or orphaned */
	int orphan;             /* its stream is gone: freed at completion, replaced in the pool */
	struct fr_peer *peer;   /* holds a reference while in flight */
	uint64_t stream_id;     /* the sending stream (may be closed by completion time) */
	uint64_t peer_stream_id; /* the receiving stream: the message's tag */
	int is_data;
	unsigned char buf[FR_MSG_MAX];
};

/*
 * Shared-memory doorbell of a context (doorbell.c): a futex slot per stream, which the peers
 * ring when they send to that stream and its waiting thread sleeps on. On a crowded machine a
 * sleeper sleeps on its slot's pipe instead (a FIFO in the user's folder), which the ringer
 * writes: a pipe's wake-up tells the scheduler that the waker is about to sleep, so it keeps
 * the two threads of a call on one CPU, where a futex wake-up leaves them apart as often as not.
 */
#define FR_BELL_SLOTS 1024
/* 16 KiB since the pipes (8 KiB before): another build's doorbell or UCX worker file then fails
 * the size checks of userdir.c, never read at the wrong offset. */
#define FR_DOORBELL_SIZE 16384
#define FR_BELL_PIPE_LOOK_MS 1000 /* longest a pipe sleeper sleeps unrung (a ringer that could not open the pipe) */
struct fr_bell_slot {
	_Atomic uint32_t seq;      /* futex word: bumped by every ring */
	_Atomic uint32_t sleepers; /* low 16 bits: threads (about to be) blocked on seq; high: see below */
	_Atomic uint32_t piped;    /* 1 while a thread (about to) sleep(s) on the slot's pipe: one at most */
};
/*
 * The high 16 bits of sleepers: the CPU + 1 that a thread waiting on one of the slot's streams last
 * ran on (0: not known), which the owner notes and its peers read (fr_bell_note_cpu, fr_bell_cpu).
 * The page had no room for a field of its own. An older build leaves the bits at 0 and, as a
 * ringer of our page, takes them for a sleeper: it makes a futex wake-up that wakes nobody.
 */
#define FR_BELL_SLEEPERS_MASK 0xffffu
#define FR_BELL_CPU_SHIFT 16
struct fr_doorbell {
	struct fr_bell_slot slot[FR_BELL_SLOTS];
	/* Per slot: bumped by the owner whenever it makes the slot's pipe anew. The owner removes a
	 * slot's pipe when its last stream on the slot closes, so a ringer that holds the pipe of an
	 * older generation opens the current one (the old one wakes nobody). An older build leaves
	 * these at 0 and never looks at them: the page's layout before them is unchanged. */
	_Atomic uint32_t pipe_gen[FR_BELL_SLOTS];
};
/*
 * A doorbell as this process holds it: the shared page, and the slots' pipes opened here. A slot's
 * pipe is held only while a stream of ours uses the slot (users): ours, a stream of ours with that
 * id; a peer's, a stream of ours sending to a stream of the peer with that id. The last one to
 * close closes the pipe (ours: removes it too), so a connection's pipes go with it.
 */
struct fr_bell {
	struct fr_doorbell *page;
	char kind[8];              /* the page's file KIND-PID-NUMBER: names the pipes KINDpipe-PID-NUMBER-SLOT */
	uint32_t pid, number;
	int own;                   /* ours: we make the pipes (and remove them) */
	pthread_mutex_t pipe_lock; /* opening, writing to and closing the pipes; users */
	_Atomic int pipe[FR_BELL_SLOTS]; /* per slot: fd + 1 of its pipe, 0 not opened yet, -1 failed */
	uint32_t pipe_gen[FR_BELL_SLOTS]; /* a peer's: the generation (page->pipe_gen) of pipe[slot] */
	unsigned users[FR_BELL_SLOTS];    /* streams of ours on the slot (see above) */
};
/* How a thread sleeps on a slot: the seq it armed, and the pipe's fd (-1: the futex). */
struct fr_bell_sleep {
	uint32_t seq;
	int pipe_fd;
};
/* Takes over page (mapped FR_DOORBELL_SIZE bytes): NULL when out of memory (page unmapped). */
struct fr_bell *fr_bell_new(void *page, const char *kind, uint32_t pid, uint32_t number, int own,
			    char *err, size_t errlen);
/* Closes the pipes opened here (ours: removes them too) and unmaps the page. */
void fr_bell_free(struct fr_bell *bell);
/* A stream of ours starts / stops using slot stream_id's (see struct fr_bell): the last one out
 * closes the slot's pipe, and removes it when the doorbell is ours. */
void fr_bell_use(struct fr_bell *bell, uint64_t stream_id);
void fr_bell_unuse(struct fr_bell *bell, uint64_t stream_id);
/* A peer's: wakes the thread waiting on its stream stream_id, or all its waiters. */
void fr_bell_ring(struct fr_bell *bell, uint64_t stream_id);
void fr_bell_ring_all(struct fr_bell *bell);
/* Ours, lock held: counts a sleeper in (on the slot's pipe when on_pipe and it is free) and
 * fills sleep with what to sleep on (look once more after). */
void fr_bell_arm(struct fr_bell *bell, uint64_t stream_id, int on_pipe, struct fr_bell_sleep *sleep);
/* Ours, lock not held: sleeps until rung after arm, or timeout_ms (-1 forever). */
void fr_bell_wait(struct fr_bell *bell, uint64_t stream_id, const struct fr_bell_sleep *sleep, int timeout_ms);
void fr_bell_disarm(struct fr_bell *bell, uint64_t stream_id, const struct fr_bell_sleep *sleep);
/* Ours: notes the CPU (sched_getcpu, -1 unknown) that a thread waiting on stream stream_id runs on. */
void fr_bell_note_cpu(struct fr_bell *bell, uint64_t stream_id, int cpu);
/* A peer's: the CPU its thread waiting on stream stream_id last ran on, -1 when not known. */
int fr_bell_cpu(const struct fr_bell *bell, uint64_t stream_id);

/* A peer context, shared by all streams to it. */
struct fr_peer {
	struct fr_peer *next;
	unsigned refs;
	int failed;                /* UCX: the endpoint reported an error; ofi shm: its process is gone */
	char fail_msg[160];
	size_t addr_len;
	unsigned char *addr;
	fi_addr_t fi_addr;          /* ofi */
	uint32_t pid;               /* ofi shm: the peer's process (its address says it) */
	uint64_t alive_nsec;        /* ofi shm: when we last saw that it lives (0: look before the next send) */
	struct fr_bell *bell;       /* doorbell mode: the peer's, mapped here */
	ucp_ep_h ep;                /* ucx */
};

struct fastrmi_ctx;

/* What a backend does for the stream layer; all called with the context lock held,
 * except block (called without it). */
struct fr_backend {
	const char *name;
	/* Keep a peer's address in the provider while the context lives, even when no stream
	 * uses it: libfabric 1.17's shm keeps a removed address's connection state and
	 * crashes sending to the next address inserted at that index. */
	int keeps_idle_peers;
	/* Messages of at least this many bytes (header included) go in fragments (UCX) that may
	 * wait at the sender for room in the receiver's queue, or by rendezvous, where the sender's
	 * worker must answer the receiver's reply (RTR) before the data moves. The provider wakes
	 * no sleeping thread of the sender for either, so a reader that finds the provider worked on
	 * messages without completing one of ours (protocol_work) rings its sending stream back
	 * (fr_ring_back), and rings it again when the message arrived: a sender asleep with one in
	 * flight would otherwise sleep its full busy-wait step (1 ms and more). 0: never. */
	size_t sender_waits_from;
	int (*open)(struct fastrmi_ctx *ctx, const char *provider, char *err, size_t errlen);
	void (*close)(struct fastrmi_ctx *ctx);
	int (*peer_open)(struct fastrmi_ctx *ctx, struct fr_peer *peer, char *err, size_t errlen);
	void (*peer_close)(struct fastrmi_ctx *ctx, struct fr_peer *peer);
	/* keeps_idle_peers: the peer's last stream closed (it keeps only its address's place), and a
	 * stream to it opens again (0, or a FASTRMI_ERR_* with a message in err). NULL: nothing to do. */
	void (*peer_idle)(struct fastrmi_ctx *ctx, struct fr_peer *peer);
	int (*peer_reuse)(struct fastrmi_ctx *ctx, struct fr_peer *peer, char *err, size_t errlen);
	/* Whether the peer's process is known to be gone (fastrmi_ctx_peers_gone). NULL: never known. */
	int (*peer_is_gone)(struct fastrmi_ctx *ctx, struct fr_peer *peer);
	/* 0 posted, -FI_EAGAIN-like 1 = try again later, <0 error (message in err); into rx->buf,
	 * or into rx->piece when rx->in_window */
	int (*post_recv)(struct fastrmi_ctx *ctx, struct fr_rx *rx, uint64_t tag, char *err, size_t errlen);
	void (*cancel_recv)(struct fastrmi_ctx *ctx, struct fr_rx *rx);
	/* 0 posted (completion later), 1 try again later, 2 done already, <0 error */
	int (*send)(struct fastrmi_ctx *ctx, struct fr_peer *peer, uint64_t tag, struct fr_tx *tx,
		    size_t len, char *err, size_t errlen);
	/* >= 0 completions handled, < 0 fatal (message in err) */
	int (*progress)(struct fastrmi_ctx *ctx, char *err, size_t errlen);
	/* before blocking: 0 may block, 1 events pending (progress again), <0 error */
	int (*arm)(struct fastrmi_ctx *ctx, char *err, size_t errlen);
	void (*block)(struct fastrmi_ctx *ctx, int timeout_ms);
	void (*disarm)(struct fastrmi_ctx *ctx);
	/* wakes the thread in block (lock held) */
	void (*kick)(struct fastrmi_ctx *ctx);
};

extern const struct fr_backend fr_ofi_backend;
extern const struct fr_backend fr_ucx_backend;

struct fr_ofi;
struct fr_ucx;

struct fastrmi_ctx {
	const struct fr_backend *be;
	pthread_mutex_t lock;
	pthread_condattr_t condattr; /* CLOCK_MONOTONIC, for the streams' conditions */
	uint64_t spin_nsec;         /* the config's spin: the longest a waiter spins */
	int wait_mode;             /* enum fastrmi_wait_mode */
	unsigned long wakes;       /* sleeping waiters woken so far (fr_wait_loop stops spinning) */
	/* Progress calls in which the provider worked on messages beyond completing ours (part of a
	 * message, a rendezvous: see sender_waits_from); counted by the backend. */
	unsigned long protocol_work;
	int spinners;              /* threads spinning in fr_wait_loop: they poll the provider */
	struct fr_bell *bell;      /* the backend's doorbell, if it has one: waiters sleep on it */
	int bell_look_ms;          /* > 0: the longest a waiter sleeps on the doorbell unrung */
	/* Doorbell: a peer's message of at most this many bytes (header included) is whole in our
	 * queue when the peer rings for it, so delivering it needs no ring of ours (0: always ring). */
	size_t peer_rings_upto;
	/* The most payload one DATA message carries: FR_CHUNK, or less where the backend says (ofi:shm). */
	size_t chunk;
	/* Whether the backend's post_recv takes a receive in pieces (rx->in_window, rx->piece): set by its open. */
	int recv_in_pieces;
	int poller;                /* a thread is in be->block (contexts without a doorbell) */
	struct fastrmi_stream *poller_stream; /* the stream it waits for */
	struct fastrmi_stream *sleeping;      /* streams with threads asleep on their cond or doorbell */
	/* The one sleeper on a condition that wakes by itself to take the wait object over when no
	 * thread polls (fr_block), and how long it sleeps before it looks. */
	struct fastrmi_stream *deputy;
	uint64_t deputy_nsec;
	int deputy_sleeps_long;    /* it went to sleep while someone polled: woken when the wait object is left */
	uint64_t held_nsec;        /* how long the last thread that blocked in be->block slept there */
	struct fastrmi_stream *deputy_wanted; /* woken to become the deputy (fr_wait) */
	uint64_t free_since;       /* when the wait object was last left with nobody polling */
	struct fastrmi_wait_counts wait_counts;
	struct fastrmi_receive_counts receive_counts;
	uint64_t woken_waits_nsec; /* rx_waited_nsec of the stream woken last (fr_wait_loop) */
	int failed;
	char fail_msg[256];
	struct fastrmi_stream *buckets[FR_STREAM_BUCKETS];
	struct fastrmi_stream *pending;  /* streams with control messages to send */
	struct fr_peer *peers;
	unsigned npeers;           /* entries of peers */
	unsigned peer_limit;       /* the most peers the backend can hold in its life; 0: no limit */
	int peer_can_block_others; /* fastrmi_ctx_peer_can_block_others */
	int may_spin_on_dead_peer; /* fastrmi_ctx_may_spin_on_dead_peer */
	struct fr_tx *tx_all;      /* every send buffer (next_all): the pool's and orphans */
	unsigned tx_orphans;       /* orphaned send buffers still in flight */
	struct fr_tx *tx_free;
	unsigned tx_inflight;
	int eagain;                /* the provider said "try again": block only briefly */
	int busy_arms;             /* see fr_block */
	int busy_block_ms;         /* see fr_block: short sleeps while messages are in flight */
	struct fr_rx *orphans;
	unsigned char addr[FASTRMI_ADDRESS_MAX];
	size_t addr_len;
	struct fr_ofi *ofi;
	struct fr_ucx *ucx;
};

/* Called by the backends from progress, lock held. status: 0 or a negative code with msg. */
void fr_rx_done(struct fastrmi_ctx *ctx, struct fr_rx *rx, int status, size_t len, const char *msg);
void fr_tx_done(struct fastrmi_ctx *ctx, struct fr_tx *tx, int status, const char *msg);
/* A peer failed (UCX error handler): its streams fail. */
void fr_peer_unref(struct fastrmi_ctx *ctx, struct fr_peer *peer);
void fr_peer_failed(struct fastrmi_ctx *ctx, struct fr_peer *peer, const char *msg);

/* This process's pid namespace (the inode of /proc/self/ns/pid; 0 where unreadable), and a random
 * number of its own: together with the pid they name its files, which no other process's name. */
uint64_t fr_pid_namespace(void);
uint32_t fr_process_random(void);
/*
 * Removes the files in dir_fd that ours() names, of this user, at least a few seconds old, that no
 * process holds a flock on: each process holds one on each of its files while it lives, so such
 * a file's process is gone (in whatever pid namespace). Never a file it cannot take the lock of.
 */
void fr_sweep_unheld(int dir_fd, int (*ours)(const char *name));
/*
 * Whether a sweep is due: the first time, then once FR_SWEEP_MIN_AGE_SEC have passed since the
 * last (a file younger than that is never swept anyway). *last_sec is the caller's, zero at
 * first. A JVM opening a context per peer at once read the whole folder for every one of them.
 */
int fr_sweep_due(_Atomic int64_t *last_sec);

/*
 * The user's own folder /dev/shm/fastrmi-UID (userdir.c): files named KIND-nsNS-PID-N for peers of
 * the same user (and pid namespace). fr_userdir_create makes one of ours of size bytes (removed at exit) and
 * returns its fd, *number naming it; fr_userdir_open_peer opens a peer's with flags, only a
 * regular file of this user of min_size..max_size bytes (*size). Both -1 with a message.
 */
int fr_userdir_create(const char *kind, size_t size, uint32_t *number, char *err, size_t errlen);
int fr_userdir_open_peer(const char *kind, uint32_t pid, uint32_t number, int flags, size_t min_size,
			 size_t max_size, size_t *size, char *err, size_t errlen);
void fr_userdir_remove(const char *kind, uint32_t number);
/*
 * The pipe (FIFO) of slot `slot` of the file KIND-nsNS-PID-NUMBER, named KINDpipe-nsNS-PID-NUMBER-SLOT:
 * fr_userdir_make_pipe makes ours, fr_userdir_open_pipe opens a peer's, only a FIFO of this user.
 * Both open it read-write and non-blocking (a ringer of a peer that is gone then neither blocks
 * nor gets SIGPIPE) and return the fd, or -1 with a message.
 */
int fr_userdir_make_pipe(const char *kind, uint32_t number, unsigned slot, char *err, size_t errlen);
int fr_userdir_open_pipe(const char *kind, uint32_t pid, uint32_t number, unsigned slot, char *err, size_t errlen);
void fr_userdir_remove_pipe(const char *kind, uint32_t number, unsigned slot);

#endif /* FASTRMI_INTERNAL_H */
