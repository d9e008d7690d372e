/*
 * fastrmi.h - public API of libfastrmi.so, the native transport library of FastRMI.
 *
 * Java binds only the functions declared here (through the FFM API), never libfabric
 * or UCX directly. It offers probes (which backends work on this host) and a small
 * socket-like byte-stream API (fastrmi_ctx_* / fastrmi_stream_* / fastrmi_send /
 * fastrmi_recv) over two backends: libfabric RDM endpoints ("ofi") and UCX ("ucx").
 *
 * Conventions:
 *  - Functions that can fail return 0 on success and a negative number on failure:
 *    a negative libfabric errno (-FI_E*) for fastrmi_ofi_*, a ucs_status_t
 *    (UCS_ERR_*, all negative) for fastrmi_ucx_*.
 *  - On failure they write a NUL-terminated, human-readable message into the caller's
 *    buffer `err` of `errlen` bytes (truncated to fit; nothing is written when err is
 *    NULL or errlen is 0). The message ends with the provider's own text
 *    (fi_strerror / ucs_status_string). On success `err` is set to "".
 *    The stream API returns its own codes instead (FASTRMI_ERR_*, below), with the
 *    provider's message in `err`.
 *  - Returned strings are static and owned by the library; never free them.
 */
#ifndef FASTRMI_H
#define FASTRMI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden; only FASTRMI_API symbols are exported. */
#if defined(__GNUC__)
#define FASTRMI_API __attribute__((visibility("default")))
#else
#define FASTRMI_API
#endif

/* Version of this library, e.g. "0.1.0" (set by the Makefile: make VERSION=x.y.z). */
FASTRMI_API const char *fastrmi_version(void);

/* ---- libfabric backend ---------------------------------------------------------- */

/*
 * Version of the libfabric loaded at run time, as fi_version() returns it:
 * major in the high 16 bits, minor in the low 16 bits (1.17 -> 0x00010011); 0 where
 * libfabric.so.1 cannot be loaded (it is opened at the first call that needs it, this one
 * included; fastrmi_ofi_probe says why).
 */
FASTRMI_API uint32_t fastrmi_ofi_version(void);

/*
 * Is libfabric provider `provider` usable here as a context asks for it: a reliable
 * datagram endpoint (FI_EP_RDM) with tagged messages (FI_TAGGED) in the order sent
 * (FI_ORDER_SAS), one thread at a time (FI_THREAD_DOMAIN)? The same hints as
 * fastrmi_ctx_open's.
 *
 * `provider` is a libfabric provider name as fi_info -p takes it: a core provider
 * ("shm", "tcp", "verbs", "efa", ...) or a layered name ("tcp;ofi_rxm"). A core
 * provider without native RDM endpoints counts as found when libfabric offers it
 * under a utility provider: on libfabric 1.17, "tcp" is reported as "tcp;ofi_rxm".
 *
 * Returns 0 when found, else a negative libfabric errno (-FI_ENODATA when no such
 * provider matches, -FI_EINVAL for a NULL/empty name, ...) with a message in `err`.
 */
FASTRMI_API int fastrmi_ofi_probe(const char *provider, char *err, size_t errlen);

/* ---- UCX backend ---------------------------------------------------------------- */

/* Version of the UCX loaded at run time, e.g. "1.13.1" (ucp_get_version_string()). */
FASTRMI_API const char *fastrmi_ucx_version(void);

/*
 * Can UCX start here? Reads the UCX configuration (UCX_* environment variables),
 * creates a context with the features fastrmi_ctx_open asks (tag matching, wake-up) and
 * one single-threaded worker, then destroys both.
 *
 * Returns 0 on success, else a (negative) ucs_status_t with a message in `err`.
 */
FASTRMI_API int fastrmi_ucx_probe(char *err, size_t errlen);

/* ---- byte streams ----------------------------------------------------------------
 *
 * A context is one endpoint (libfabric) or one worker (UCX) of this process; open one
 * per backend + provider and share it. A stream is an ordered, reliable, flow-controlled
 * byte stream between two contexts, multiplexed with any number of other streams over
 * that one endpoint. Streams are paired out of band: each side sends the other its
 * context address (fastrmi_ctx_address) and a stream id it chose, then both call
 * fastrmi_stream_open with their own id as `local_id` and the other's as `peer_id`.
 * Nothing is exchanged in band to connect, and either side may open first.
 *
 * Threads: any number of threads may use one context at once, each on its own stream
 * direction: a thread blocked receiving on stream A never holds up a thread sending on
 * stream B. Two threads must not send on one stream at once, nor receive on one stream
 * at once. A waiting thread spins at most for the context's spin time, then blocks in the
 * kernel (fastrmi_ctx_set_wait says how long it spins); an idle context costs no CPU (the library starts no threads), but for a UCX
 * context that listens (socket-address mode): its blocked waiter looks for connection
 * requests every 50 ms, which UCX does not signal on the worker's fd (about 3 ms of CPU a
 * second).
 *
 * Buffers passed to fastrmi_send / fastrmi_recv are used only during the call (they
 * may be pinned Java heap arrays); the library copies, and allocates nothing per call.
 *
 * Return codes: >= 0 on success (a byte count where one is returned), else one of: */
enum fastrmi_status {
	FASTRMI_OK = 0,
	FASTRMI_ERR_TIMEOUT = -1,  /* timeout_ms passed first (timeout 0: no message); the stream stays usable */
	FASTRMI_ERR_ABORTED = -2,  /* fastrmi_stream_abort was called on the stream */
	FASTRMI_ERR_CLOSED = -3,   /* send after fastrmi_shutdown_write */
	FASTRMI_ERR_INVALID = -4,  /* bad argument (message says which) */
	FASTRMI_ERR_NOMEM = -5,    /* out of memory */
	FASTRMI_ERR_PROVIDER = -6, /* libfabric / UCX failed; message has its own text */
	FASTRMI_ERR_PROTOCOL = -7, /* the peer broke the stream protocol */
	FASTRMI_ERR_NOT_FOUND = -8, /* fastrmi_tcp_peer: no such connection on this host */
	FASTRMI_ERR_RESET = -9,    /* send to a peer that closed the stream (see fastrmi_stream_close) */
	FASTRMI_ERR_FULL = -10,    /* the context holds all the peers it can (fastrmi_ctx_peers_left) */
};

/*
 * The status's name as written above ("FASTRMI_ERR_PROVIDER"), so that no caller prints a bare
 * number; "FASTRMI_UNKNOWN_STATUS" for a code that is not one. Never NULL.
 */
FASTRMI_API const char *fastrmi_strstatus(int status);

/* Payload bytes one stream may have sent but not yet consumed by the reader. */
#define FASTRMI_STREAM_WINDOW (1024 * 1024)
/* Longest context address fastrmi_ctx_address can return. */
#define FASTRMI_ADDRESS_MAX 4096

/* ---- who the peer is ------------------------------------------------------------------
 *
 * Shared-memory transports are used only between processes of one user, learnt from the
 * kernel, never from what a peer says. */

/* This process's effective uid. */
FASTRMI_API uint32_t fastrmi_process_uid(void);

/*
 * The owner (uid) and inode of the peer's socket of an established TCP connection on this
 * host, in this process's network namespace, as the kernel keeps them (sock_diag): the
 * connection from peer_ip:peer_port (the peer's end) to own_ip:own_port (ours). Addresses are
 * 4 (IPv4) or 16 (IPv6) bytes in network order, both of one length; an IPv4 connection on an
 * IPv6 socket is looked up by its IPv4 addresses. The inode tells which process holds the
 * socket (/proc/PID/fd). Returns 0 with *uid and *inode; FASTRMI_ERR_NOT_FOUND when no such
 * connection has its peer's end on this host; another negative code with a message in err.
 */
FASTRMI_API int fastrmi_tcp_peer(const uint8_t *peer_ip, size_t peer_ip_len, uint16_t peer_port,
				 const uint8_t *own_ip, size_t own_ip_len, uint16_t own_port,
				 uint32_t *uid, uint64_t *inode, char *err, size_t errlen);

/*
 * Whether process pid holds the socket of inode inode (fastrmi_tcp_peer's) among its open files
 * (/proc/PID/fd): 1 if it does, 0 if not; FASTRMI_ERR_NOT_FOUND when there is no such process or
 * its open files cannot be read (it is gone, or not ours to look at), another negative code
 * otherwise; a message in err when negative.
 */
FASTRMI_API int fastrmi_process_holds_socket(int64_t pid, uint64_t inode, char *err, size_t errlen);

/* ---- nudges ---------------------------------------------------------------------------
 *
 * A wait on a socket FastRMI does not own (a JVM's TCP connection) that another thread can end
 * early: a thread that knows whose data comes next in its process (a callback's caller, once its
 * handler has replied) nudges that thread, which then spins for the data instead of sleeping
 * until it comes. A nudge is an eventfd, owned by the caller; one thread waits on it at a time.
 * fastrmi_nudge_open: a new nudge (>= 0), or a negative FASTRMI_ERR_* with a message in err.
 * fastrmi_nudge: ends the nudge's current wait, or its next one if none waits now.
 * fastrmi_nudge_close: closes it; no thread may wait on it or nudge it then.
 * fastrmi_nudge_wait: waits until fd is readable (data, its end, or an error to read), the nudge
 * comes (it is then spent), or timeout_ms pass: FASTRMI_NUDGE_READABLE, FASTRMI_NUDGE_NUDGED,
 * FASTRMI_NUDGE_NOTHING (the time passed, or a signal came: look again), or a negative code
 * (FASTRMI_ERR_INVALID: fd or nudge is not an open descriptor).
 */
enum fastrmi_nudge_result {
	FASTRMI_NUDGE_NOTHING = 0,
	FASTRMI_NUDGE_READABLE = 1,
	FASTRMI_NUDGE_NUDGED = 2,
};
FASTRMI_API int fastrmi_nudge_open(char *err, size_t errlen);
FASTRMI_API int fastrmi_nudge(int nudge, char *err, size_t errlen);
FASTRMI_API int fastrmi_nudge_close(int nudge, char *err, size_t errlen);
FASTRMI_API int fastrmi_nudge_wait(int fd, int nudge, int timeout_ms, char *err, size_t errlen);

/*
 * Whether socket fd has something to read now, without waiting: 1 when it has data, its peer's
 * end or an error (a read would return at once), 0 when a read would wait; a negative code
 * (FASTRMI_ERR_INVALID: fd is not an open descriptor) with a message in err. A pooled TCP
 * connection with nothing to read is idle and was not closed or reset by its peer: what RMI's
 * ping before a reused connection learns, without the round trip.
 */
FASTRMI_API int fastrmi_socket_readable(int fd, char *err, size_t errlen);

typedef struct fastrmi_ctx fastrmi_ctx;
typedef struct fastrmi_stream fastrmi_stream;

/* Who moves a context's bytes (fastrmi_ctx_open). 0 is none: Java's "tcp" is RMI's own socket. */
enum fastrmi_backend {
	FASTRMI_BACKEND_OFI = 1, /* libfabric */
	FASTRMI_BACKEND_UCX = 2, /* UCX */
};

/*
 * Opens a context. backend: an enum fastrmi_backend.
 * provider: for ofi a libfabric provider name ("shm" for peers on this host,
 * "tcp;ofi_rxm" across hosts, "verbs;ofi_rxm", "efa", ...); for ucx a UCX_TLS list
 * for this context ("shm", "tcp", "rc,sm", ...; "self" is added), or NULL or "" for UCX's
 * own choice (shared memory on one host, else tcp/RDMA). UCX_* environment variables
 * apply; UCX_TLS, when set, wins over the provider.
 * spin_usec: how long a waiting thread polls before it blocks (0 = block at once).
 * Returns 0 and *ctx, or a negative FASTRMI_ERR_* with a message in err.
 */
FASTRMI_API int fastrmi_ctx_open(int backend, const char *provider, uint32_t spin_usec,
				 fastrmi_ctx **ctx, char *err, size_t errlen);

/* How a waiting thread waits, within the context's spin time (fastrmi_ctx_set_wait). */
enum fastrmi_wait_mode {
	/* The default. Spins about four times as long as the stream's recent replies took,
	 * and not at all while replies outlast the spin (an idle peer, a callback), while the
	 * machine has more runnable threads than usable CPUs (unless, on shared memory, the
	 * thread waited for runs on another CPU), on one usable CPU, or once it woke another
	 * waiting thread of the context (the one it probably waits for). */
	FASTRMI_WAIT_ADAPTIVE = 0,
	FASTRMI_WAIT_SPIN = 1,  /* always spins the whole spin time, then blocks */
	FASTRMI_WAIT_BLOCK = 2, /* never spins */
};

/*
 * Sets how the context's waiting threads wait: 0, or FASTRMI_ERR_INVALID for a bad mode.
 * usable_cpus: the CPUs this process may use, as the caller knows them (a JVM's
 * availableProcessors counts a container's CPU quota), process-wide; 0: the library counts its
 * CPU affinity mask. Adaptive waiting never spins on one CPU.
 */
FASTRMI_API int fastrmi_ctx_set_wait(fastrmi_ctx *ctx, int mode, int32_t usable_cpus, char *err, size_t errlen);

/*
 * The same idle strategy for a wait the caller does itself (FastRMI's Java side polls a TCP
 * socket before its read blocks), so that one set of rules decides every wait. A budget is the
 * caller's memory, FASTRMI_WAIT_BUDGET_SIZE bytes aligned to 8, zeroed before its first use, one
 * per stream and direction, used by one thread at a time.
 * fastrmi_wait_spin_for: how long the next wait spins, in ns (0: block at once), for a wait
 * mode and a longest spin; like the library's own waits it looks at whether the machine is
 * crowded. An unknown mode or a NULL budget never spins.
 * fastrmi_wait_learn: what that wait took, and whether it ended while spinning.
 * fastrmi_wait_may_spin: whether a wait starting now could spin at all (1) or must block (0: wait
 * = block, no spin time, or adaptive on a crowded machine), a look that learns nothing and costs
 * no system call most of the time: a caller whose look for data costs one asks this first.
 * fastrmi_wait_spinners_max: how many threads of the caller's group of streams may spin at once
 * (the caller counts them); usable_cpus as for fastrmi_ctx_set_wait.
 */
#define FASTRMI_WAIT_BUDGET_SIZE 32
FASTRMI_API uint64_t fastrmi_wait_spin_for(void *budget, int mode, uint64_t max_nsec);
FASTRMI_API void fastrmi_wait_learn(void *budget, uint64_t max_nsec, uint64_t waited_nsec, int answered_spinning);
FASTRMI_API int fastrmi_wait_may_spin(int mode, uint64_t max_nsec);
FASTRMI_API int fastrmi_wait_spinners_max(int32_t usable_cpus);

/*
 * Copies the context's address (opaque bytes, at most FASTRMI_ADDRESS_MAX) into buf.
 * *len is buf's size on entry and the address length on return. Returns 0, or
 * FASTRMI_ERR_INVALID when buf is too small (*len then says how much is needed).
 *
 * What a peer passes to fastrmi_stream_open is this address, except for UCX contexts of
 * any provider but "shm", which are reached by socket address: their address is 'S', the
 * port of the context's listener (2 bytes, network order) and its IP version (4 or 6), and
 * the peer appends the IP of that version (4 or 16 bytes, network order) at which it
 * reaches this process, i.e. the IP of the connection the two negotiated on.
 */
FASTRMI_API int fastrmi_ctx_address(fastrmi_ctx *ctx, void *buf, size_t *len);

/*
 * Lets a peer at ip (4 or 16 bytes, network order) connect to this context for the next
 * two minutes: UCX contexts reached by socket address take connection requests only from
 * such peers, and reject all others before UCX reads what they carry. Call it before the
 * peer is told this context's address. Does nothing for other contexts. Returns 0, or
 * FASTRMI_ERR_INVALID.
 */
FASTRMI_API int fastrmi_ctx_expect_peer(fastrmi_ctx *ctx, const uint8_t *ip, size_t ip_len, char *err,
					size_t errlen);

/*
 * How many more peers (other contexts) streams of this context can reach, or -1 when no
 * limit is known. libfabric's shm keeps at most its domain's ep_cnt (256 in 1.17) peers
 * in an address vector, and a removed address cannot safely be reused, so an ofi:shm
 * context reaches that many peers in its life; a stream to one more fails with
 * FASTRMI_ERR_FULL. Open a fresh context for new peers before it gets there.
 */
FASTRMI_API int64_t fastrmi_ctx_peers_left(fastrmi_ctx *ctx);

/*
 * Whether a peer that dies in the middle of a send can stop this context from receiving
 * from its other peers (1) or not (0). UCX's shared-memory transports (mm: posix, sysv,
 * which UCX may choose for a peer on this host unless UCX_TLS leaves them out) put every
 * peer's messages to a worker into one FIFO that the worker reads in order; a sender killed
 * between reserving an element and marking it written leaves one that is never marked, and
 * the worker reads nothing more from anyone. Give each peer a context of its own on such a
 * transport, so that a dead peer stops only its own.
 */
FASTRMI_API int fastrmi_ctx_peer_can_block_others(fastrmi_ctx *ctx);

/*
 * Whether a call on this context may spin without end on a lock a dead peer held (1) or not
 * (0). libfabric's shm (1.17) guards each region with a process-shared spin lock that a
 * sender takes in the receiver's region and a receiver in its own; a peer killed holding one
 * leaves it held for good, and the next call that takes it spins for ever. Such a call must
 * never be made where a spinning thread holds up others: from a Java critical downcall it
 * would stop every thread of the JVM at the next safepoint. With a context per peer
 * (fastrmi_ctx_peer_can_block_others) it then costs only the dead peer's own streams.
 */
FASTRMI_API int fastrmi_ctx_may_spin_on_dead_peer(fastrmi_ctx *ctx);

/*
 * How many of the peers this context keeps without a stream (fastrmi_ctx_peers_left: ofi keeps
 * each one's place for the context's life) are gone: failed, or, for ofi:shm, their process no
 * longer exists (looked at now, a system call per idle peer). Such a peer still holds what the
 * provider keeps for it (libfabric's shm: a mapping of its 16 MiB region) until the context
 * closes: a context with no streams and gone peers is best closed, and a fresh one opened for new
 * peers. 0 for a NULL context and for backends that keep no idle peers (UCX).
 */
FASTRMI_API int64_t fastrmi_ctx_peers_gone(fastrmi_ctx *ctx);

/*
 * How the context's waiting threads were woken, counted since it opened; the first three on a
 * context without a doorbell (every provider but shm) only, the nudges (fastrmi_stream_nudge) on
 * all. A waiting thread sleeps in the provider's wait object
 * only when no other thread of the context polls, so that one wake-up brings it its own message;
 * one woken there for another thread's message hands it over (a second wake-up) and leaves the
 * wait object to that thread. deputy_looks: how often the one sleeper that covers for a poller
 * gone back to its work woke by itself to look (at most every 0.5 ms while others poll).
 */
struct fastrmi_wait_counts {
	uint64_t woken_in_provider; /* wake-ups in the provider's wait object */
	uint64_t woken_for_others;  /* ... that brought only other threads' messages */
	uint64_t deputy_looks;
	uint64_t nudges;            /* fastrmi_stream_nudge calls that found their stream's reader asleep */
	uint64_t answered_nudged;   /* waits for data that a nudged spin answered */
	uint64_t provider_polls;    /* the provider's progress called (a read of bytes already there calls none) */
	uint64_t spun_crowded;      /* waits that spun on a crowded machine: the thread waited for ran on another CPU */
	uint64_t nested;            /* waits for data inside a nested call (a callback's reply to a server's thread) */
	uint64_t nested_spun;       /* ... that spinning answered */
	uint64_t after_pause;       /* waits for data that followed a pause of the stream's (over 1 ms): no spin */
	uint64_t streamed;          /* waits inside a transfer (own sends in flight, a large message just in) that spun through it */
};
FASTRMI_API void fastrmi_ctx_wait_counts(fastrmi_ctx *ctx, struct fastrmi_wait_counts *counts);

/*
 * Where the DATA bytes a context received went, since it opened: straight into their stream's
 * window (a stream amid large messages, where receives go in pieces: UCX), or through
 * the stream's receive buffer, which costs one copy more.
 */
struct fastrmi_receive_counts {
	uint64_t bytes_in_window;
	uint64_t bytes_through_buffer;
};
FASTRMI_API void fastrmi_ctx_receive_counts(fastrmi_ctx *ctx, struct fastrmi_receive_counts *counts);

/*
 * Closes the context: every stream still open on it must be closed first (streams left
 * open are closed here). Frees everything; NULL is ignored.
 */
FASTRMI_API void fastrmi_ctx_close(fastrmi_ctx *ctx);

/*
 * Opens the stream local_id <-> peer_id to the context at peer_addr (bytes from the
 * peer's fastrmi_ctx_address, see there). Peer addresses are checked field by field before
 * libfabric or UCX sees them; the shared-memory ones (ofi shm doorbells, ucx shm worker
 * addresses) only name, by pid and number, files in this user's own folder
 * /dev/shm/fastrmi-UID, which only processes of this user can write: still, take them only
 * from a process of this user (fastrmi_tcp_peer). local_id must be unique in ctx among open streams; the
 * peer opens with the two ids swapped. Data may be sent at once: it flows as soon as
 * the peer's side is open (the peer grants the first window when it opens).
 * Returns 0 and *stream, or a negative FASTRMI_ERR_* with a message in err.
 */
FASTRMI_API int fastrmi_stream_open(fastrmi_ctx *ctx, const void *peer_addr, size_t peer_addr_len,
				    uint64_t local_id, uint64_t peer_id, fastrmi_stream **stream,
				    char *err, size_t errlen);

/*
 * Sends len bytes (any length). Blocks until every byte has been handed to the transport,
 * which needs credit from the reader: at most FASTRMI_STREAM_WINDOW bytes are ever
 * unconsumed by the peer; then, unless timeout_ms is 0, until the transport is done with the
 * stream's messages (a receiver may pull large ones from the sender): with len 0 that is all
 * it does. timeout_ms: -1 waits forever, 0 sends only what goes without waiting. Returns len; or, when the timeout
 * passed after some bytes went, their count (0 < n < len); else a negative code
 * (FASTRMI_ERR_TIMEOUT when none went).
 */
FASTRMI_API int64_t fastrmi_send(fastrmi_stream *stream, const void *buf, size_t len,
				 int timeout_ms, char *err, size_t errlen);

/*
 * Receives up to cap bytes: waits until at least one byte is there (or timeout_ms, -1 =
 * forever, 0 = do not wait), then returns what is there, up to cap. Returns 0 at the
 * end of the stream (the peer called fastrmi_shutdown_write or closed, and every byte
 * before it has been received), and 0 at once when cap is 0. Negative on error.
 */
FASTRMI_API int64_t fastrmi_recv(fastrmi_stream *stream, void *buf, size_t cap, int timeout_ms,
				 char *err, size_t errlen);

/*
 * fastrmi_send / fastrmi_recv of the bytes at base + offset: for bindings that hand over an
 * array's start and cannot offset a pointer without allocating (a Java array through FFM).
 */
FASTRMI_API int64_t fastrmi_send_at(fastrmi_stream *stream, const void *base, size_t offset, size_t len,
				    int timeout_ms, char *err, size_t errlen);
FASTRMI_API int64_t fastrmi_recv_at(fastrmi_stream *stream, void *base, size_t offset, size_t cap,
				    int timeout_ms, char *err, size_t errlen);

/*
 * fastrmi_recv_at of bytes already received, for a caller that must not wait at all (one that
 * holds a Java array critically, on a context whose calls may spin on a dead peer's lock): takes
 * the context's lock only if it is free, never looks at the transport and never sends, so it
 * takes no more than leaves the stream short of owing its peer credit (a fastrmi_recv then
 * reports it). Returns the bytes copied, or FASTRMI_ERR_TIMEOUT when it takes none (nothing
 * received, the lock busy, credit owed, or a stream whose error fastrmi_recv reports).
 */
FASTRMI_API int64_t fastrmi_recv_received_at(fastrmi_stream *stream, void *base, size_t offset, size_t cap);

/*
 * Waits, as fastrmi_recv would, until fastrmi_recv can return without waiting: returns the
 * bytes there (0 at the end of the stream), or a negative code (FASTRMI_ERR_TIMEOUT when
 * timeout_ms passed first). Copies nothing: a caller whose buffer must not be held during a
 * wait (a Java array) waits here, then takes the bytes with fastrmi_recv(timeout 0).
 */
FASTRMI_API int64_t fastrmi_wait_readable(fastrmi_stream *stream, int timeout_ms, char *err, size_t errlen);

/*
 * A callback's turns, where one thread's data always comes first after another's wait began
 * (the caller's handler gets the call back, the caller later the reply): the thread that knows
 * whose data comes next nudges that stream's reader to spin for spin_nsec (fastrmi_stream_nudge:
 * woken now if asleep; a reader not yet waiting spins in its next wait until then, on any
 * context), then waits for its own data without spinning (fastrmi_wait_readable_after_nudge, as
 * fastrmi_wait_readable otherwise), so that the one thread spinning is the one the next message is
 * for. A nudged reader spins under adaptive waiting with a spin and room among its context's
 * spinners, whatever its own budget learnt and however crowded the machine (the nudger's core is
 * handed over), and yields its core between looks after FASTRMI_NUDGED_SPIN_YIELD_NSEC; it stops
 * when its context wakes another thread. spin_nsec is capped at 1 ms.
 */
#define FASTRMI_NUDGED_SPIN_YIELD_NSEC 20000u
FASTRMI_API int fastrmi_stream_nudge(fastrmi_stream *stream, uint64_t spin_nsec, char *err, size_t errlen);
FASTRMI_API int64_t fastrmi_wait_readable_after_nudge(fastrmi_stream *stream, int timeout_ms, char *err, size_t errlen);

/*
 * Waits, as fastrmi_send would, until fastrmi_send(timeout 0) can send at least one byte or
 * must fail (it then says how): returns 0, or a negative code as fastrmi_send.
 */
FASTRMI_API int fastrmi_wait_writable(fastrmi_stream *stream, int timeout_ms, char *err, size_t errlen);

/* Bytes fastrmi_recv would return now without waiting (after polling the transport once). */
FASTRMI_API size_t fastrmi_available(fastrmi_stream *stream);

/*
 * Half-close: the peer's fastrmi_recv returns 0 once it has read everything sent
 * before. Later sends fail with FASTRMI_ERR_CLOSED. Receiving goes on. Returns 0 or a
 * negative code.
 */
FASTRMI_API int fastrmi_shutdown_write(fastrmi_stream *stream, char *err, size_t errlen);

/*
 * Marks the stream failed, from any thread: calls blocked on it return
 * FASTRMI_ERR_ABORTED at once, and so do later ones. For a peer that died (the Java side
 * sees that on its control connection) or for closing a stream another thread is
 * blocked on: abort, wait for that thread to return, then close.
 */
FASTRMI_API void fastrmi_stream_abort(fastrmi_stream *stream);

/*
 * Closes the stream and frees it: no call may be running on it (abort first to wake
 * them). The peer's reads see the end of the stream after the data sent before; its
 * sends (a writer waiting for credit too) are dropped for up to twice the window, as
 * TCP's buffers take them, then fail with FASTRMI_ERR_RESET, as TCP's after a close
 * with data unread. Unread data is dropped. NULL is ignored.
 */
FASTRMI_API void fastrmi_stream_close(fastrmi_stream *stream);

#ifdef __cplusplus
}
#endif

#endif /* FASTRMI_H */
