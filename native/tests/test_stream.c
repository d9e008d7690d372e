/*
 * test_stream.c - the byte-stream API between two real processes (fork), on every
 * backend + transport this host has: libfabric "shm" and "tcp;ofi_rxm", UCX shared
 * memory (UCX_TLS=posix,sysv,cma,self) and UCX tcp (UCX_TLS=tcp,self).
 *
 * Each test forks; parent and child each open their own context after the fork (the
 * providers are not fork-safe), swap addresses over a socketpair, and open one or more
 * streams with swapped ids. The child's verdict is its exit status; the parent prints
 * one "ok - ..." line per check.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fastrmi.h"
#include "thread_switches.h"

#define ERRLEN 512
#define ERRMSG 256
#define SPIN_USEC 50
#define MIB (1024u * 1024u)
#define TEST_ALARM_SEC 90

struct config {
	const char *label;
	int backend; /* enum fastrmi_backend */
	const char *provider;
	const char *ucx_tls; /* UCX_TLS for this config, NULL: leave the environment alone */
	int wait_mode;       /* enum fastrmi_wait_mode */
};

/* One side of a test: its context, the peer's address and the socketpair end. */
struct side {
	const struct config *cfg;
	fastrmi_ctx *ctx;
	unsigned char peer_addr[FASTRMI_ADDRESS_MAX];
	size_t peer_addr_len;
	int sock;
	int is_child;
};

typedef int (*side_fn)(struct side *side, char *why, size_t whylen);

/* ---- helpers ---------------------------------------------------------------------- */

/* Byte i of a test stream: no period, so bytes that land at another offset are always seen. */
static unsigned char pattern(uint64_t i, unsigned seed)
{
	uint64_t x = (i >> 3) + ((uint64_t)seed << 48) + 0x9e3779b97f4a7c15u; /* splitmix64 */

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	x ^= x >> 31;
	return (unsigned char)(x >> ((i & 7) * 8));
}

static void fill(unsigned char *buf, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = pattern(i, seed);
}

/* Offset of the first byte that breaks the pattern, or len. */
static size_t verify(const unsigned char *buf, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] != pattern(i, seed))
			return i;
	return len;
}

static double now_sec(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sock_write(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int sock_read(int fd, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A one-byte signal between the two processes. */
static int sync_send(struct side *s) { char c = 's'; return sock_write(s->sock, &c, 1); }
static int sync_wait(struct side *s) { char c; return sock_read(s->sock, &c, 1); }

static int send_all(fastrmi_stream *st, const void *buf, size_t len, char *why, size_t whylen)
{
	char err[ERRMSG];
	int64_t n = fastrmi_send(st, buf, len, -1, err, sizeof(err));

	if (n != (int64_t)len) {
		snprintf(why, whylen, "fastrmi_send(%zu) = %" PRId64 ": %s", len, n, err);
		return -1;
	}
	return 0;
}

static int recv_exact(fastrmi_stream *st, void *buf, size_t len, size_t max_chunk,
		      char *why, size_t whylen)
{
	unsigned char *p = buf;
	char err[ERRMSG];
	size_t got = 0;

	while (got < len) {
		size_t want = len - got < max_chunk ? len - got : max_chunk;
		int64_t n = fastrmi_recv(st, p + got, want, 10000, err, sizeof(err));

		if (n <= 0) {
			snprintf(why, whylen, "fastrmi_recv after %zu of %zu bytes = %" PRId64 ": %s",
				 got, len, n, n == 0 ? "end of stream" : err);
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

/* recv_exact through fastrmi_recv_at: each piece lands at buf + the bytes so far. */
static int recv_exact_at(fastrmi_stream *st, void *buf, size_t len, size_t max_chunk,
			 char *why, size_t whylen)
{
	char err[ERRMSG];
	size_t got = 0;

	while (got < len) {
		size_t want = len - got < max_chunk ? len - got : max_chunk;
		int64_t n = fastrmi_recv_at(st, buf, got, want, 10000, err, sizeof(err));

		if (n <= 0) {
			snprintf(why, whylen, "fastrmi_recv_at after %zu of %zu bytes = %" PRId64 ": %s",
				 got, len, n, n == 0 ? "end of stream" : err);
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

/* send_all through fastrmi_send_at, in two halves: from buf + 0 and from buf + len / 2. */
static int send_all_at(fastrmi_stream *st, const void *buf, size_t len, char *why, size_t whylen)
{
	size_t half = len / 2;
	char err[ERRMSG];
	int64_t n = fastrmi_send_at(st, buf, 0, half, -1, err, sizeof(err));

	if (n == (int64_t)half)
		n = fastrmi_send_at(st, buf, half, len - half, -1, err, sizeof(err));
	else
		half = 0;
	if (n != (int64_t)(len - half)) {
		snprintf(why, whylen, "fastrmi_send_at(%zu) = %" PRId64 ": %s", len, n, err);
		return -1;
	}
	return 0;
}

static int open_stream(struct side *s, uint64_t local, uint64_t peer, fastrmi_stream **st,
		       char *why, size_t whylen)
{
	char err[ERRMSG];
	int ret = fastrmi_stream_open(s->ctx, s->peer_addr, s->peer_addr_len, local, peer, st,
				      err, sizeof(err));

	if (ret != 0)
		snprintf(why, whylen, "fastrmi_stream_open(%" PRIu64 ") = %d: %s", local, ret, err);
	return ret;
}

/* Opens this side's context and swaps addresses with the other process. */
static int side_open(struct side *s, char *why, size_t whylen)
{
	static const uint8_t loopback[4] = { 127, 0, 0, 1 };
	unsigned char addr[FASTRMI_ADDRESS_MAX];
	size_t len = sizeof(addr);
	char err[ERRMSG];
	uint32_t n;
	int ret;

	ret = fastrmi_ctx_open(s->cfg->backend, s->cfg->provider, SPIN_USEC, &s->ctx, err, sizeof(err));
	if (ret != 0) {
		snprintf(why, whylen, "fastrmi_ctx_open = %d: %s", ret, err);
		return -1;
	}
	ret = fastrmi_ctx_set_wait(s->ctx, s->cfg->wait_mode, 0, err, sizeof(err));
	if (ret != 0) {
		snprintf(why, whylen, "fastrmi_ctx_set_wait = %d: %s", ret, err);
		return -1;
	}
	ret = fastrmi_ctx_address(s->ctx, addr, &len);
	if (ret != 0) {
		snprintf(why, whylen, "fastrmi_ctx_address = %d", ret);
		return -1;
	}
	/* Before the peer learns our address, as FastRMI's handshake does. */
	ret = fastrmi_ctx_expect_peer(s->ctx, loopback, sizeof(loopback), err, sizeof(err));
	if (ret != 0) {
		snprintf(why, whylen, "fastrmi_ctx_expect_peer = %d: %s", ret, err);
		return -1;
	}
	n = (uint32_t)len;
	if (sock_write(s->sock, &n, sizeof(n)) != 0 || sock_write(s->sock, addr, len) != 0 ||
	    sock_read(s->sock, &n, sizeof(n)) != 0 || n > sizeof(s->peer_addr) ||
	    sock_read(s->sock, s->peer_addr, n) != 0) {
		snprintf(why, whylen, "address exchange with the other process failed");
		return -1;
	}
	s->peer_addr_len = n;
	/* A UCX context reached by socket address: the peer is at 127.0.0.1. */
	if (n == 4 && s->peer_addr[0] == 'S' && s->peer_addr[3] == 4) {
		memcpy(s->peer_addr + n, loopback, sizeof(loopback));
		s->peer_addr_len = n + sizeof(loopback);
	}
	return 0;
}

/*
 * Runs parent_fn here and child_fn in a forked child, each with its own context.
 * Returns the parent's verdict; *child_status gets the child's exit status (-1 when it
 * did not exit normally, e.g. killed by the test).
 */
static int run_pair_once(const struct config *cfg, side_fn parent_fn, side_fn child_fn,
			 char *why, size_t whylen, pid_t *child_pid_out, int *child_status)
{
	struct side me = { .cfg = cfg };
	int sv[2], status, ret;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		snprintf(why, whylen, "socketpair: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char cwhy[ERRLEN] = "";

		close(sv[0]);
		alarm(TEST_ALARM_SEC);
		me.sock = sv[1];
		me.is_child = 1;
		ret = side_open(&me, cwhy, sizeof(cwhy));
		if (ret == 0)
			ret = child_fn(&me, cwhy, sizeof(cwhy));
		fastrmi_ctx_close(me.ctx);
		if (ret != 0)
			fprintf(stderr, "# %s child: %s\n", cfg->label, cwhy);
		close(sv[1]);
		exit(ret == 0 ? 0 : 1); /* exit, not _exit: LeakSanitizer checks the child too */
	}
	close(sv[1]);
	alarm(TEST_ALARM_SEC);
	me.sock = sv[0];
	if (child_pid_out != NULL)
		*child_pid_out = pid;
	ret = side_open(&me, why, whylen);
	if (ret == 0)
		ret = parent_fn(&me, why, whylen);
	fastrmi_ctx_close(me.ctx);
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	alarm(0);
	*child_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return ret;
}

/*
 * As run_pair_once, and once more when UCX failed the endpoint with "Endpoint timeout": its tcp
 * transport gives that false alarm now and then on this 2-core machine (the echo and the 64
 * streams of "ucx tcp", three sightings in many runs, under load and once under ASan alone).
 * Said in a '#' line; a second failure is the test's.
 */
static int run_pair(const struct config *cfg, side_fn parent_fn, side_fn child_fn,
		    char *why, size_t whylen, pid_t *child_pid_out, int *child_status)
{
	int ret = run_pair_once(cfg, parent_fn, child_fn, why, whylen, child_pid_out, child_status);

	if (ret != 0 && cfg->backend == FASTRMI_BACKEND_UCX && strstr(why, "Endpoint timeout (-80)") != NULL) {
		fprintf(stderr, "# %s: UCX said %s; once more (UCX tcp keepalive's false alarm)\n", cfg->label, why);
		why[0] = '\0';
		ret = run_pair_once(cfg, parent_fn, child_fn, why, whylen, child_pid_out, child_status);
	}
	return ret;
}

static void report(const struct config *cfg, const char *what, int parent_ret, const char *why,
		   int child_status, int child_may_die)
{
	char name[256];

	snprintf(name, sizeof(name), "%s: %s", cfg->label, what);
	if (parent_ret != 0)
		CHECK(name, 0, "%s", why);
	else if (child_status != 0 && !child_may_die)
		CHECK(name, 0, "child failed (exit status %d; see its '#' line)", child_status);
	else
		CHECK(name, 1, "%s", "");
}

/* ---- echo of sizes 0 B .. 16 MiB ----------------------------------------------------- */

static const size_t echo_sizes[] = { 0, 1, 7, 4096, 65535, 65536, 65537, 262143, 262144, 262145, 300000, MIB, 16 * MIB };
#define N_SIZES (sizeof(echo_sizes) / sizeof(echo_sizes[0]))

static int echo_parent(struct side *s, char *why, size_t whylen)
{
	unsigned char *out = malloc(16 * MIB), *in = malloc(16 * MIB);
	fastrmi_stream *st = NULL;
	int ret = -1;

	if (out == NULL || in == NULL || open_stream(s, 1, 2, &st, why, whylen) != 0)
		goto out;
	for (size_t k = 0; k < N_SIZES; k++) {
		uint64_t len = echo_sizes[k];
		size_t bad;

		fill(out, len, (unsigned)k);
		memset(in, 0, len);
		if (send_all(st, &len, sizeof(len), why, whylen) != 0 ||
		    send_all(st, out, len, why, whylen) != 0 ||
		    recv_exact(st, in, len, 16 * MIB, why, whylen) != 0)
			goto out;
		bad = verify(in, len, (unsigned)k);
		if (bad != len) {
			snprintf(why, whylen, "echo of %" PRIu64 " bytes differs at byte %zu", len, bad);
			goto out;
		}
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	free(out);
	free(in);
	return ret;
}

static int echo_child(struct side *s, char *why, size_t whylen)
{
	unsigned char *buf = malloc(16 * MIB);
	fastrmi_stream *st = NULL;
	int ret = -1;

	if (buf == NULL || open_stream(s, 2, 1, &st, why, whylen) != 0)
		goto out;
	for (size_t k = 0; k < N_SIZES; k++) {
		uint64_t len;
		size_t bad;

		/* Odd read sizes: the stream has no message boundaries. */
		if (recv_exact(st, &len, sizeof(len), 3, why, whylen) != 0 ||
		    recv_exact_at(st, buf, len, 3000 + k * 977, why, whylen) != 0)
			goto out;
		bad = verify(buf, len, (unsigned)k);
		if (len != echo_sizes[k] || bad != len) {
			snprintf(why, whylen, "received %" PRIu64 " bytes, differs at byte %zu", len, bad);
			goto out;
		}
		if (send_all_at(st, buf, len, why, whylen) != 0)
			goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	free(buf);
	return ret;
}

/* ---- 64 streams at once, one thread each --------------------------------------------- */

#define N_STREAMS 64
#define STREAM_BYTES (128 * 1024)

struct many_arg {
	fastrmi_stream *st;
	unsigned seed;
	int is_child;
	char why[ERRLEN];
	int ret;
};

static void *many_thread(void *p)
{
	struct many_arg *a = p;
	unsigned char *buf = malloc(STREAM_BYTES), *in = malloc(STREAM_BYTES);
	size_t bad;

	a->ret = -1;
	if (buf == NULL || in == NULL)
		goto out;
	if (a->is_child) {
		/* Echo in pieces as they come. */
		size_t done = 0;
		char err[ERRMSG];

		while (done < STREAM_BYTES) {
			int64_t n = fastrmi_recv(a->st, buf, STREAM_BYTES, 20000, err, sizeof(err));

			if (n <= 0) {
				snprintf(a->why, sizeof(a->why), "recv = %" PRId64 ": %s", n, err);
				goto out;
			}
			if (send_all(a->st, buf, (size_t)n, a->why, sizeof(a->why)) != 0)
				goto out;
			done += (size_t)n;
		}
	} else {
		fill(buf, STREAM_BYTES, a->seed);
		if (send_all(a->st, buf, STREAM_BYTES, a->why, sizeof(a->why)) != 0 ||
		    recv_exact(a->st, in, STREAM_BYTES, STREAM_BYTES, a->why, sizeof(a->why)) != 0)
			goto out;
		bad = verify(in, STREAM_BYTES, a->seed);
		if (bad != STREAM_BYTES) {
			snprintf(a->why, sizeof(a->why), "stream seed %u differs at byte %zu", a->seed, bad);
			goto out;
		}
	}
	a->ret = 0;
out:
	free(buf);
	free(in);
	return NULL;
}

static int many_side(struct side *s, char *why, size_t whylen)
{
	static struct many_arg args[2][N_STREAMS];
	struct many_arg *a = args[s->is_child];
	pthread_t threads[N_STREAMS];
	int ret = 0, i, started = 0;

	memset(a, 0, sizeof(args[0]));
	for (i = 0; i < N_STREAMS; i++) {
		uint64_t mine = (s->is_child ? 2000 : 1000) + (uint64_t)i;
		uint64_t theirs = (s->is_child ? 1000 : 2000) + (uint64_t)i;

		a[i].seed = (unsigned)i + 11;
		a[i].is_child = s->is_child;
		if (open_stream(s, mine, theirs, &a[i].st, why, whylen) != 0) {
			ret = -1;
			goto out;
		}
	}
	for (started = 0; started < N_STREAMS; started++)
		if (pthread_create(&threads[started], NULL, many_thread, &a[started]) != 0) {
			snprintf(why, whylen, "pthread_create failed");
			ret = -1;
			break;
		}
	for (i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
		if (a[i].ret != 0 && ret == 0) {
			snprintf(why, whylen, "stream %d: %.300s", i, a[i].why);
			ret = -1;
		}
	}
out:
	for (i = 0; i < N_STREAMS; i++)
		fastrmi_stream_close(a[i].st);
	return ret;
}

/* ---- a full peer queue drained with nothing sent back --------------------------------- */

#define QUEUE_STREAMS 8

/*
 * The sender fills the peer's queue (the peer does not progress for a while) and is refused
 * (ofi shm: -FI_EAGAIN); then the peer takes everything into its windows without reading, so
 * nothing comes back (no credit under a quarter window): the sender must try again by itself.
 */
static int queue_parent(struct side *s, char *why, size_t whylen)
{
	unsigned char *buf = malloc(FASTRMI_STREAM_WINDOW);
	fastrmi_stream *st[QUEUE_STREAMS] = { 0 };
	char err[ERRMSG];
	int ret = -1, i;

	if (buf == NULL)
		goto out;
	fill(buf, FASTRMI_STREAM_WINDOW, 9);
	for (i = 0; i < QUEUE_STREAMS; i++)
		if (open_stream(s, 100 + (uint64_t)i, 200 + (uint64_t)i, &st[i], why, whylen) != 0)
			goto out;
	if (sync_wait(s) != 0)
		goto out;
	for (i = 0; i < QUEUE_STREAMS; i++) {
		int64_t n = fastrmi_send(st[i], buf, FASTRMI_STREAM_WINDOW, 10000, err, sizeof(err));

		if (n != FASTRMI_STREAM_WINDOW) {
			snprintf(why, whylen, "stream %d: fastrmi_send(1 MiB) = %" PRId64 ": %s", i, n, err);
			goto out;
		}
	}
	ret = sync_send(s) != 0 || sync_wait(s) != 0 ? -1 : 0;
out:
	for (i = 0; i < QUEUE_STREAMS; i++)
		fastrmi_stream_close(st[i]);
	free(buf);
	return ret;
}

static int queue_child(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st[QUEUE_STREAMS] = { 0 };
	double deadline = now_sec(CLOCK_MONOTONIC) + 15;
	size_t total = 0;
	int ret = -1, i;

	for (i = 0; i < QUEUE_STREAMS; i++)
		if (open_stream(s, 200 + (uint64_t)i, 100 + (uint64_t)i, &st[i], why, whylen) != 0)
			goto out;
	if (sync_send(s) != 0)
		goto out;
	usleep(300000); /* no progress: the sender fills our queue */
	while (total < (size_t)QUEUE_STREAMS * FASTRMI_STREAM_WINDOW && now_sec(CLOCK_MONOTONIC) < deadline) {
		total = 0;
		for (i = 0; i < QUEUE_STREAMS; i++)
			total += fastrmi_available(st[i]); /* progresses; reads nothing, so grants nothing */
		usleep(1000);
	}
	if (total < (size_t)QUEUE_STREAMS * FASTRMI_STREAM_WINDOW) {
		snprintf(why, whylen, "%zu of %d bytes arrived in 15 s", total, QUEUE_STREAMS * FASTRMI_STREAM_WINDOW);
		goto out;
	}
	ret = sync_wait(s) != 0 || sync_send(s) != 0 ? -1 : 0;
out:
	for (i = 0; i < QUEUE_STREAMS; i++)
		fastrmi_stream_close(st[i]);
	return ret;
}

/* ---- flow control: a reader that does not read, then reads slowly --------------------- */

#define FLOW_BYTES (4 * MIB)

static int flow_parent(struct side *s, char *why, size_t whylen)
{
	unsigned char *buf = malloc(FLOW_BYTES);
	fastrmi_stream *st = NULL;
	char err[ERRMSG];
	int64_t n;
	int ret = -1;

	if (buf == NULL || open_stream(s, 1, 2, &st, why, whylen) != 0 || sync_wait(s) != 0)
		goto out;
	/* A first byte, untimed: connecting may take both sides' progress (UCX wire-up), and the
	 * reader does not progress while it waits below. */
	n = fastrmi_recv(st, buf, 1, 10000, err, sizeof(err));
	if (n != 1 || buf[0] != 'r') {
		snprintf(why, whylen, "first recv = %" PRId64 " (%s)", n, err);
		goto out;
	}
	fill(buf, FLOW_BYTES, 5);
	/* The reader reads nothing yet: the send must stop at the window, not overrun it. */
	n = fastrmi_send(st, buf, FLOW_BYTES, 300, err, sizeof(err));
	if (n <= 0 || n > FASTRMI_STREAM_WINDOW) {
		snprintf(why, whylen, "send to a reader that does not read returned %" PRId64
			 " (expected 0 < n <= window %d): %s", n, FASTRMI_STREAM_WINDOW, err);
		goto out;
	}
	if (sync_send(s) != 0 || send_all(st, buf + n, FLOW_BYTES - (size_t)n, why, whylen) != 0)
		goto out;
	if (sync_wait(s) != 0) {
		snprintf(why, whylen, "reader did not confirm");
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	free(buf);
	return ret;
}

/*
 * Another thread of the reader's process making progress all along (fastrmi_available does), so
 * that messages land in the window while a large read copies out of it without the lock.
 */
struct flow_prober {
	fastrmi_stream *st;
	atomic_int stop;
	size_t max_avail;
	pthread_t thread;
	int running;
};

static void *flow_probe(void *p)
{
	struct flow_prober *pr = p;

	while (!atomic_load(&pr->stop)) {
		size_t avail = fastrmi_available(pr->st);

		if (avail > pr->max_avail)
			pr->max_avail = avail;
		sched_yield();
	}
	return NULL;
}

static int prober_start(struct flow_prober *pr, fastrmi_stream *st, char *why, size_t whylen)
{
	pr->st = st;
	if (pthread_create(&pr->thread, NULL, flow_probe, pr) != 0) {
		snprintf(why, whylen, "pthread_create failed");
		return -1;
	}
	pr->running = 1;
	return 0;
}

/* Stops and joins the prober if it runs; its max_avail is final after this. */
static void prober_stop(struct flow_prober *pr)
{
	if (pr->running) {
		atomic_store(&pr->stop, 1);
		pthread_join(pr->thread, NULL);
		pr->running = 0;
	}
}

static int flow_child(struct side *s, char *why, size_t whylen)
{
	unsigned char *buf = malloc(FLOW_BYTES);
	fastrmi_stream *st = NULL;
	size_t got = 0, bad, avail, max_avail = 0;
	char err[ERRMSG];
	int ret = -1, reads = 0;
	struct flow_prober prober = { 0 };

	if (buf == NULL || open_stream(s, 2, 1, &st, why, whylen) != 0 || sync_send(s) != 0 ||
	    send_all(st, "r", 1, why, whylen) != 0 || sync_wait(s) != 0 ||
	    prober_start(&prober, st, why, whylen) != 0)
		goto out;
	while (got < FLOW_BYTES) {
		int64_t n;

		if (++reads % 16 == 0) {
			usleep(2000); /* slow reader */
			avail = fastrmi_available(st);
			if (avail > max_avail)
				max_avail = avail;
		}
		/* Small reads and large ones, which copy out of the window while the sender refills it. */
		n = fastrmi_recv(st, buf + got, reads % 2 ? 4096 : 200000, 10000, err, sizeof(err));
		if (n <= 0) {
			snprintf(why, whylen, "recv after %zu bytes = %" PRId64 ": %s", got, n, err);
			goto out;
		}
		got += (size_t)n;
	}
	prober_stop(&prober);
	bad = verify(buf, FLOW_BYTES, 5);
	if (bad != FLOW_BYTES) {
		snprintf(why, whylen, "data differs at byte %zu", bad);
		goto out;
	}
	if (prober.max_avail > max_avail)
		max_avail = prober.max_avail;
	if (max_avail > FASTRMI_STREAM_WINDOW) {
		snprintf(why, whylen, "%zu bytes buffered, more than the window", max_avail);
		goto out;
	}
	ret = sync_send(s);
out:
	prober_stop(&prober);
	fastrmi_stream_close(st);
	free(buf);
	return ret;
}

/* ---- reads of all there is, while the sender refills the window ---------------------- */

#define BULK_BYTES (32 * MIB)

/* Once the reader is ready, sends it `len` bytes of the pattern `seed`; waits for its verdict. */
static int send_pattern(struct side *s, size_t len, unsigned seed, char *why, size_t whylen)
{
	unsigned char *buf = malloc(len);
	fastrmi_stream *st = NULL;
	int ret = -1;

	if (buf == NULL || open_stream(s, 1, 2, &st, why, whylen) != 0 || sync_wait(s) != 0)
		goto out;
	fill(buf, len, seed);
	if (send_all(st, buf, len, why, whylen) != 0)
		goto out;
	if (sync_wait(s) != 0) {
		snprintf(why, whylen, "reader did not confirm");
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	free(buf);
	return ret;
}

static int bulk_parent(struct side *s, char *why, size_t whylen)
{
	return send_pattern(s, BULK_BYTES, 9, why, whylen);
}

/*
 * Each read takes all there is, so it copies out of the window without the lock while the
 * prober delivers the sender's next messages: they must land beside the bytes being copied,
 * never on them.
 */
static int bulk_child(struct side *s, char *why, size_t whylen)
{
	unsigned char *buf = malloc(BULK_BYTES);
	fastrmi_stream *st = NULL;
	size_t got = 0, bad;
	char err[ERRMSG];
	int ret = -1;
	struct flow_prober prober = { 0 };

	if (buf == NULL || open_stream(s, 2, 1, &st, why, whylen) != 0 ||
	    prober_start(&prober, st, why, whylen) != 0 || sync_send(s) != 0)
		goto out;
	while (got < BULK_BYTES) {
		int64_t n = fastrmi_recv(st, buf + got, BULK_BYTES - got, 10000, err, sizeof(err));

		if (n <= 0) {
			snprintf(why, whylen, "recv after %zu bytes = %" PRId64 ": %s", got, n, err);
			goto out;
		}
		got += (size_t)n;
	}
	bad = verify(buf, BULK_BYTES, 9);
	if (bad != BULK_BYTES) {
		snprintf(why, whylen, "data differs at byte %zu", bad);
		goto out;
	}
	ret = sync_send(s);
out:
	prober_stop(&prober);
	fastrmi_stream_close(st);
	free(buf);
	return ret;
}

/* fastrmi_recv_received_at in a thread of its own, so that a call that waits fails the test. */
#define RECEIVED_WAIT_SEC 5

struct received_call {
	fastrmi_stream *st;
	unsigned char *buf;
	size_t cap;
	int64_t ret;
	sem_t done;
};

static void *received_call_thread(void *p)
{
	struct received_call *c = p;

	c->ret = fastrmi_recv_received_at(c->st, c->buf, 0, c->cap);
	sem_post(&c->done);
	return NULL;
}

/* The call in a thread of its own: what it returned, or why it did not return in time. */
static int received_call_in_time(fastrmi_stream *st, unsigned char *buf, size_t cap, int64_t *ret,
				 char *why, size_t whylen)
{
	struct received_call c = { .st = st, .buf = buf, .cap = cap };
	struct timespec until;
	pthread_t thread;

	if (sem_init(&c.done, 0, 0) != 0 || pthread_create(&thread, NULL, received_call_thread, &c) != 0) {
		snprintf(why, whylen, "set-up failed");
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += RECEIVED_WAIT_SEC;
	if (sem_timedwait(&c.done, &until) != 0) {
		snprintf(why, whylen, "fastrmi_recv_received_at did not return in %d s", RECEIVED_WAIT_SEC);
		return -1; /* the thread stays blocked: the test fails */
	}
	pthread_join(thread, NULL);
	sem_destroy(&c.done);
	*ret = c.ret;
	return 0;
}

/* ---- a second reader while a large read copies without the lock --------------------- */

/*
 * Reader A takes the first CLAIM_READ bytes in one read: more than FR_COPY_UNLOCKED_MIN, so it
 * copies them out of the window without the context lock. Its buffer's second page may not be
 * written, so that copy stops there (a SIGSEGV whose handler waits) with the bytes claimed.
 * Reader B then reads: it must wait for A's copy to end, since a read that moved the window's
 * head would let deliveries land on the bytes A still copies. Then A's page is opened, A's copy
 * goes on, B reads the next CLAIM_B_BYTES, and both must hold the stream's bytes in order.
 */
#define CLAIM_SENT (4 * MIB)
#define CLAIM_READ (256 * 1024)
#define CLAIM_B_BYTES (3 * MIB / 2)
#define CLAIM_PAUSE_USEC 100000

static sem_t claim_faulted, claim_resume;
static unsigned char *claim_page;
static long claim_page_size;

static void claim_on_segv(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if ((unsigned char *)info->si_addr < claim_page ||
	    (unsigned char *)info->si_addr >= claim_page + claim_page_size) {
		signal(sig, SIG_DFL); /* a real fault: crash as without the handler */
		return;
	}
	sem_post(&claim_faulted);
	while (sem_wait(&claim_resume) != 0)
		;
}

struct claim_reader {
	fastrmi_stream *st;
	unsigned char *buf;
	size_t want;
	atomic_size_t got;
	int64_t ret;
	char err[ERRMSG];
	pthread_t thread;
	int running;
};

/* Reads until `want` bytes are in, or a read fails (ret: the failing read's result, else 0). */
static void *claim_read_thread(void *p)
{
	struct claim_reader *r = p;
	size_t got = 0;

	while (got < r->want) {
		r->ret = fastrmi_recv(r->st, r->buf + got, r->want - got, 10000, r->err, sizeof(r->err));
		if (r->ret <= 0)
			return NULL;
		got += (size_t)r->ret;
		atomic_store(&r->got, got);
	}
	r->ret = 0;
	return NULL;
}

static int claim_start(struct claim_reader *r, fastrmi_stream *st, unsigned char *buf, size_t want,
		       char *why, size_t whylen)
{
	r->st = st;
	r->buf = buf;
	r->want = want;
	if (pthread_create(&r->thread, NULL, claim_read_thread, r) != 0) {
		snprintf(why, whylen, "pthread_create failed");
		return -1;
	}
	r->running = 1;
	return 0;
}

/* Joins the reader; fails unless it read all it wanted. */
static int claim_join(struct claim_reader *r, const char *name, char *why, size_t whylen)
{
	if (!r->running)
		return 0;
	pthread_join(r->thread, NULL);
	r->running = 0;
	if (atomic_load(&r->got) != r->want) {
		snprintf(why, whylen, "reader %s got %zu of %zu bytes, its read = %" PRId64 ": %s", name,
			 atomic_load(&r->got), r->want, r->ret, r->err);
		return -1;
	}
	return 0;
}

/*
 * A reader's buffer of `bytes` whose second page may not be written: a copy into it stops there,
 * in claim_on_segv, until stopped_copy_resume. One at a time (claim_page and the semaphores).
 */
struct stopped_copy {
	unsigned char *buf;
	size_t len;
	struct sigaction old;
	int handler, paused;
};

static int stopped_copy_open(struct stopped_copy *c, size_t bytes, char *why, size_t whylen)
{
	struct sigaction act = { 0 };

	claim_page_size = sysconf(_SC_PAGESIZE);
	c->len = bytes;
	c->buf = mmap(NULL, c->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bytes < 2 * (size_t)claim_page_size || c->buf == MAP_FAILED || sem_init(&claim_faulted, 0, 0) != 0 ||
	    sem_init(&claim_resume, 0, 0) != 0) {
		snprintf(why, whylen, "set-up failed");
		return -1;
	}
	claim_page = c->buf + claim_page_size;
	act.sa_sigaction = claim_on_segv;
	act.sa_flags = SA_SIGINFO;
	sigemptyset(&act.sa_mask);
	if (sigaction(SIGSEGV, &act, &c->old) != 0) {
		snprintf(why, whylen, "sigaction failed: %s", strerror(errno));
		return -1;
	}
	c->handler = 1;
	if (mprotect(claim_page, (size_t)claim_page_size, PROT_NONE) != 0) {
		snprintf(why, whylen, "mprotect failed: %s", strerror(errno));
		return -1;
	}
	c->paused = 1;
	return 0;
}

/* Waits until a reader's copy stopped at the closed page. */
static int stopped_copy_reached(const char *reader, char *why, size_t whylen)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	if (sem_timedwait(&claim_faulted, &until) != 0) {
		snprintf(why, whylen, "reader %s's copy did not reach its closed page", reader);
		return -1;
	}
	return 0;
}

/* Opens the page: the stopped copy goes on. */
static int stopped_copy_resume(struct stopped_copy *c, char *why, size_t whylen)
{
	if (!c->paused)
		return 0;
	if (mprotect(claim_page, (size_t)claim_page_size, PROT_READ | PROT_WRITE) != 0) {
		snprintf(why, whylen, "mprotect failed: %s", strerror(errno));
		return -1;
	}
	c->paused = 0;
	sem_post(&claim_resume);
	return 0;
}

/* Resumes a copy still stopped (on a failure) and restores what stopped_copy_open changed. */
static void stopped_copy_close(struct stopped_copy *c)
{
	char ignored[ERRMSG];

	(void)stopped_copy_resume(c, ignored, sizeof(ignored));
	if (c->handler)
		sigaction(SIGSEGV, &c->old, NULL);
	if (c->buf != NULL && c->buf != MAP_FAILED)
		munmap(c->buf, c->len);
}

static int claim_parent(struct side *s, char *why, size_t whylen)
{
	return send_pattern(s, CLAIM_SENT, 11, why, whylen);
}

static int claim_child(struct side *s, char *why, size_t whylen)
{
	unsigned char *all = malloc(CLAIM_SENT);
	size_t b_early, bad;
	fastrmi_stream *st = NULL;
	struct claim_reader a = { 0 }, b = { 0 };
	struct stopped_copy stop = { 0 };
	int64_t taken;
	int ret = -1;

	/* A copies one page, then stops. */
	if (all == NULL || stopped_copy_open(&stop, CLAIM_READ, why, whylen) != 0 ||
	    open_stream(s, 2, 1, &st, why, whylen) != 0 || sync_send(s) != 0)
		goto out;
	/* A's one read must take CLAIM_READ bytes: wait until the window holds more than that. */
	for (int i = 0; fastrmi_available(st) <= CLAIM_READ; i++) {
		if (i == 10000) {
			snprintf(why, whylen, "the window never held %d bytes", CLAIM_READ);
			goto out;
		}
		usleep(1000);
	}
	if (claim_start(&a, st, stop.buf, CLAIM_READ, why, whylen) != 0 || stopped_copy_reached("A", why, whylen) != 0)
		goto out;
	/* Nor may bytes be taken by a call that waits for nothing (it gives up at once). */
	if (received_call_in_time(st, all + CLAIM_READ, CLAIM_B_BYTES, &taken, why, whylen) != 0)
		goto out;
	if (taken != FASTRMI_ERR_TIMEOUT) {
		snprintf(why, whylen, "fastrmi_recv_received_at took %" PRId64 " bytes while A's copy was stopped", taken);
		goto out;
	}
	if (claim_start(&b, st, all + CLAIM_READ, CLAIM_B_BYTES, why, whylen) != 0)
		goto out;
	usleep(CLAIM_PAUSE_USEC);
	b_early = atomic_load(&b.got);
	if (stopped_copy_resume(&stop, why, whylen) != 0 || claim_join(&a, "A", why, whylen) != 0 ||
	    claim_join(&b, "B", why, whylen) != 0)
		goto out;
	if (b_early > 0) {
		snprintf(why, whylen, "reader B read %zu bytes while A's copy out of the window was stopped", b_early);
		goto out;
	}
	memcpy(all, stop.buf, CLAIM_READ);
	if (recv_exact(st, all + CLAIM_READ + CLAIM_B_BYTES, CLAIM_SENT - CLAIM_READ - CLAIM_B_BYTES, 1 * MIB,
		       why, whylen) != 0)
		goto out;
	bad = verify(all, CLAIM_SENT, 11);
	if (bad != CLAIM_SENT) {
		snprintf(why, whylen, "data differs at byte %zu (A read bytes 0..%d, B the next %d)", bad,
			 CLAIM_READ, CLAIM_B_BYTES);
		goto out;
	}
	ret = sync_send(s);
out:
	if (a.running || b.running) {
		char ignored[ERRMSG];

		(void)stopped_copy_resume(&stop, ignored, sizeof(ignored));
		fastrmi_stream_abort(st);
		claim_join(&a, "A", ignored, sizeof(ignored));
		claim_join(&b, "B", ignored, sizeof(ignored));
	}
	fastrmi_stream_close(st);
	stopped_copy_close(&stop);
	free(all);
	return ret;
}

/* ---- bytes already received, taken by a call that waits for nothing ----------------- *
 *
 * fastrmi_recv_received_at is what a Java thread holding an array critically calls on a context
 * whose calls may spin on a dead peer's lock: it takes bytes in the window, stops short of owing
 * the peer credit (a fastrmi_recv then reports it), never polls the provider, and returns at
 * once (nothing taken) while another reader holds the context lock or copies out of the window.
 */
#define RECEIVED_SENT (3 * MIB / 4)
#define RECEIVED_HELD_READ 8192 /* below FR_COPY_UNLOCKED_MIN: copied with the lock held */

static int received_parent(struct side *s, char *why, size_t whylen)
{
	return send_pattern(s, RECEIVED_SENT, 13, why, whylen);
}

static int received_child(struct side *s, char *why, size_t whylen)
{
	unsigned char *all = malloc(RECEIVED_SENT);
	size_t got = 0, taken, bad;
	fastrmi_stream *st = NULL;
	struct fastrmi_wait_counts before, after;
	struct claim_reader a = { 0 };
	struct stopped_copy stop = { 0 };
	char err[ERRMSG];
	int64_t n;
	int ret = -1;

	if (all == NULL) {
		snprintf(why, whylen, "set-up failed");
		goto out;
	}
	if (open_stream(s, 2, 1, &st, why, whylen) != 0 || sync_send(s) != 0)
		goto out;
	for (int i = 0; fastrmi_available(st) < RECEIVED_SENT; i++) {
		if (i == 10000) {
			snprintf(why, whylen, "the window never held %u bytes", RECEIVED_SENT);
			goto out;
		}
		usleep(1000);
	}
	/* Up to the credit batch, a quarter of the window, with no look at the provider. */
	fastrmi_ctx_wait_counts(s->ctx, &before);
	while ((n = fastrmi_recv_received_at(st, all, got, RECEIVED_SENT - got)) > 0)
		got += (size_t)n;
	fastrmi_ctx_wait_counts(s->ctx, &after);
	if (n != FASTRMI_ERR_TIMEOUT || got == 0 || got >= FASTRMI_STREAM_WINDOW / 4) {
		snprintf(why, whylen, "took %zu bytes, then %" PRId64 ": wanted some, fewer than the credit batch %u, "
			 "then FASTRMI_ERR_TIMEOUT", got, n, FASTRMI_STREAM_WINDOW / 4);
		goto out;
	}
	if (after.provider_polls != before.provider_polls) {
		snprintf(why, whylen, "taking received bytes polled the provider %" PRIu64 " times",
			 after.provider_polls - before.provider_polls);
		goto out;
	}
	/* A read reports the credit; then the bytes can be taken again. */
	n = fastrmi_recv(st, all + got, 1000, 0, err, sizeof(err));
	if (n != 1000) {
		snprintf(why, whylen, "fastrmi_recv after %zu taken bytes = %" PRId64 ": %s", got, n, err);
		goto out;
	}
	got += 1000;
	taken = got;
	n = fastrmi_recv_received_at(st, all, got, RECEIVED_SENT - got);
	if (n <= 0) {
		snprintf(why, whylen, "nothing taken after a read reported the credit: %" PRId64, n);
		goto out;
	}
	got += (size_t)n;

	/* Reader A copies RECEIVED_HELD_READ bytes with the lock held, and stops at a closed page. */
	if (stopped_copy_open(&stop, RECEIVED_HELD_READ, why, whylen) != 0 ||
	    claim_start(&a, st, stop.buf, RECEIVED_HELD_READ, why, whylen) != 0 ||
	    stopped_copy_reached("A", why, whylen) != 0)
		goto out;
	if (received_call_in_time(st, all + got, RECEIVED_SENT - got, &n, why, whylen) != 0)
		goto out;
	if (n != FASTRMI_ERR_TIMEOUT) {
		snprintf(why, whylen, "took %" PRId64 " bytes while reader A held the context lock", n);
		goto out;
	}
	if (stopped_copy_resume(&stop, why, whylen) != 0 || claim_join(&a, "A", why, whylen) != 0)
		goto out;
	memcpy(all + got, stop.buf, RECEIVED_HELD_READ);
	got += RECEIVED_HELD_READ;
	if (recv_exact(st, all + got, RECEIVED_SENT - got, 1 * MIB, why, whylen) != 0)
		goto out;
	if (fastrmi_recv_received_at(st, all, 0, RECEIVED_SENT) != FASTRMI_ERR_TIMEOUT) {
		snprintf(why, whylen, "an empty window gave bytes");
		goto out;
	}
	bad = verify(all, RECEIVED_SENT, 13);
	if (bad != RECEIVED_SENT) {
		snprintf(why, whylen, "data differs at byte %zu (taken: 0..%zu and on)", bad, taken);
		goto out;
	}
	ret = sync_send(s);
out:
	if (a.running) {
		char ignored[ERRMSG];

		(void)stopped_copy_resume(&stop, ignored, sizeof(ignored));
		fastrmi_stream_abort(st);
		claim_join(&a, "A", ignored, sizeof(ignored));
	}
	fastrmi_stream_close(st);
	stopped_copy_close(&stop);
	free(all);
	return ret;
}

/* ---- half-close, timeout, abort ---------------------------------------------------- */

#define EOF_BYTES 100000

struct blocked_recv {
	fastrmi_stream *st;
	int64_t ret;
	char err[ERRMSG];
};

static void *blocked_recv_thread(void *p)
{
	struct blocked_recv *b = p;
	char c;

	b->ret = fastrmi_recv(b->st, &c, 1, -1, b->err, sizeof(b->err));
	return NULL;
}

static int eof_parent(struct side *s, char *why, size_t whylen)
{
	unsigned char *buf = malloc(EOF_BYTES);
	fastrmi_stream *st = NULL, *idle = NULL;
	struct blocked_recv b = { 0 };
	pthread_t thread;
	char err[ERRMSG], reply[10];
	double t0;
	int64_t n;
	int ret = -1;

	if (buf == NULL || open_stream(s, 1, 2, &st, why, whylen) != 0 ||
	    open_stream(s, 3, 4, &idle, why, whylen) != 0)
		goto out;

	/* A receive with a timeout on a quiet stream says so with its own code. */
	t0 = now_sec(CLOCK_MONOTONIC);
	n = fastrmi_recv(idle, buf, 1, 50, err, sizeof(err));
	if (n != FASTRMI_ERR_TIMEOUT || now_sec(CLOCK_MONOTONIC) - t0 < 0.045) {
		snprintf(why, whylen, "recv with 50 ms timeout = %" PRId64 " (%s)", n, err);
		goto out;
	}
	if (strstr(err, "timed out") == NULL) {
		snprintf(why, whylen, "recv with 50 ms timeout said \"%s\", not that it timed out", err);
		goto out;
	}
	n = fastrmi_wait_readable(idle, 50, err, sizeof(err));
	if (n != FASTRMI_ERR_TIMEOUT) {
		snprintf(why, whylen, "wait_readable with 50 ms timeout = %" PRId64 " (%s)", n, err);
		goto out;
	}
	/* A receive that must not wait finds nothing: its answer, with no message formatted (the
	 * bindings poll so several times a call). */
	snprintf(err, sizeof(err), "left over");
	n = fastrmi_recv(idle, buf, 1, 0, err, sizeof(err));
	if (n != FASTRMI_ERR_TIMEOUT || err[0] != '\0') {
		snprintf(why, whylen, "recv with timeout 0 on a quiet stream = %" PRId64 " (\"%s\")", n, err);
		goto out;
	}
	/* Abort from another thread wakes a receive blocked forever. */
	b.st = idle;
	if (pthread_create(&thread, NULL, blocked_recv_thread, &b) != 0) {
		snprintf(why, whylen, "pthread_create failed");
		goto out;
	}
	usleep(100000);
	fastrmi_stream_abort(idle);
	pthread_join(thread, NULL);
	if (b.ret != FASTRMI_ERR_ABORTED) {
		snprintf(why, whylen, "blocked recv after abort = %" PRId64 " (%s)", b.ret, b.err);
		goto out;
	}

	fill(buf, EOF_BYTES, 9);
	if (send_all(st, buf, EOF_BYTES, why, whylen) != 0)
		goto out;
	if (fastrmi_shutdown_write(st, err, sizeof(err)) != 0) {
		snprintf(why, whylen, "shutdown_write: %s", err);
		goto out;
	}
	n = fastrmi_send(st, buf, 1, -1, err, sizeof(err));
	if (n != FASTRMI_ERR_CLOSED) {
		snprintf(why, whylen, "send after shutdown_write = %" PRId64 ", expected CLOSED", n);
		goto out;
	}
	n = fastrmi_wait_writable(st, -1, err, sizeof(err));
	if (n != FASTRMI_ERR_CLOSED) {
		snprintf(why, whylen, "wait_writable after shutdown_write = %" PRId64 ", expected CLOSED", n);
		goto out;
	}
	/* The peer's answer is waited for without taking it. */
	n = fastrmi_wait_readable(st, 10000, err, sizeof(err));
	if (n <= 0 || n > (int64_t)sizeof(reply)) {
		snprintf(why, whylen, "wait_readable for the answer = %" PRId64 " (%s)", n, err);
		goto out;
	}
	/* The peer answers and closes: its data, then end of stream. */
	if (recv_exact(st, reply, sizeof(reply), sizeof(reply), why, whylen) != 0)
		goto out;
	n = fastrmi_recv(st, buf, 10, 10000, err, sizeof(err));
	if (n != 0) {
		snprintf(why, whylen, "recv after the peer closed = %" PRId64 " (%s), expected 0", n, err);
		goto out;
	}
	n = fastrmi_wait_readable(st, 10000, err, sizeof(err));
	if (n != 0) {
		snprintf(why, whylen, "wait_readable after the peer closed = %" PRId64 " (%s), expected 0", n, err);
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	fastrmi_stream_close(idle);
	free(buf);
	return ret;
}

static int eof_child(struct side *s, char *why, size_t whylen)
{
	unsigned char *buf = malloc(EOF_BYTES + 1);
	fastrmi_stream *st = NULL, *idle = NULL;
	char err[ERRMSG];
	int64_t n;
	size_t bad;
	int ret = -1;

	if (buf == NULL || open_stream(s, 2, 1, &st, why, whylen) != 0 ||
	    open_stream(s, 4, 3, &idle, why, whylen) != 0)
		goto out;
	if (recv_exact(st, buf, EOF_BYTES, EOF_BYTES, why, whylen) != 0)
		goto out;
	bad = verify(buf, EOF_BYTES, 9);
	n = fastrmi_recv(st, buf, EOF_BYTES + 1, 10000, err, sizeof(err));
	if (bad != EOF_BYTES || n != 0) {
		snprintf(why, whylen, "data differs at %zu; recv after the data = %" PRId64 " (%s)",
			 bad, n, err);
		goto out;
	}
	memset(buf, 'r', 10);
	if (send_all(st, buf, 10, why, whylen) != 0)
		goto out;
	ret = 0;
out:
	fastrmi_stream_close(st); /* the peer sees the end of the stream */
	fastrmi_stream_close(idle);
	free(buf);
	return ret;
}

/* ---- a reader that closes while the writer waits for credit ------------------------ */

static int reset_parent(struct side *s, char *why, size_t whylen)
{
	unsigned char *buf = malloc(FLOW_BYTES);
	fastrmi_stream *st = NULL;
	char err[ERRMSG];
	int64_t n;
	int ret = -1;

	if (buf == NULL || open_stream(s, 1, 2, &st, why, whylen) != 0 ||
	    recv_exact(st, buf, 1, 1, why, whylen) != 0)
		goto out;
	/* More than the window, no timeout: only the peer's close can end this send. */
	memset(buf, 7, FLOW_BYTES);
	n = fastrmi_send(st, buf, FLOW_BYTES, -1, err, sizeof(err));
	if (n != FASTRMI_ERR_RESET || strstr(err, "reset") == NULL) {
		snprintf(why, whylen, "send to a peer that closed = %" PRId64 " (%s), expected %d "
			 "(FASTRMI_ERR_RESET)", n, err, FASTRMI_ERR_RESET);
		goto out;
	}
	n = fastrmi_send(st, buf, 1, 1000, err, sizeof(err));
	if (n != FASTRMI_ERR_RESET) {
		snprintf(why, whylen, "a later send = %" PRId64 " (%s)", n, err);
		goto out;
	}
	n = fastrmi_recv(st, buf, 1, 1000, err, sizeof(err));
	if (n != 0) {
		snprintf(why, whylen, "recv from a peer that closed = %" PRId64 " (%s), expected 0 (end)",
			 n, err);
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	if (sync_send(s) != 0 && ret == 0) /* the peer's context may go now */
		ret = -1;
	free(buf);
	return ret;
}

static int reset_child(struct side *s, char *why, size_t whylen)
{
	unsigned char buf[4096];
	fastrmi_stream *st = NULL;
	int ret = -1;

	if (open_stream(s, 2, 1, &st, why, whylen) != 0 || send_all(st, "r", 1, why, whylen) != 0 ||
	    recv_exact(st, buf, sizeof(buf), sizeof(buf), why, whylen) != 0)
		goto out;
	usleep(200000); /* the writer fills the window and waits for credit */
	fastrmi_stream_close(st); /* with ~1 MiB unread: the writer's send fails */
	st = NULL;
	/* The context stays (a JVM goes on after closing a connection) until the writer is done. */
	ret = sync_wait(s);
out:
	fastrmi_stream_close(st);
	return ret;
}

/* ---- peer death -------------------------------------------------------------------- */

static pid_t death_child_pid;

/* The shm regions ("fastrmi-nsNS-PID-R:N:N" in /dev/shm) of a process we killed: it cannot unlink them itself. */
static void remove_shm_regions_of(pid_t pid)
{
	char pattern[64];
	glob_t found;

	snprintf(pattern, sizeof(pattern), "/dev/shm/fastrmi-ns*-%ld-*:*:*", (long)pid);
	if (glob(pattern, 0, NULL, &found) != 0)
		return; /* none (GLOB_NOMATCH), or nothing we could list */
	for (size_t i = 0; i < found.gl_pathc; i++)
		if (unlink(found.gl_pathv[i]) != 0)
			fprintf(stderr, "# cannot remove %s: %s\n", found.gl_pathv[i], strerror(errno));
	globfree(&found);
}

static int death_parent(struct side *s, char *why, size_t whylen)
{
	/* More than the window: a send to a dead peer can never finish. */
	const size_t beyond_window = 2 * FASTRMI_STREAM_WINDOW;
	unsigned char *buf = malloc(beyond_window);
	fastrmi_stream *st = NULL;
	char err[ERRMSG], c[10];
	int64_t n;
	int ret = -1;

	if (buf == NULL || open_stream(s, 1, 2, &st, why, whylen) != 0 ||
	    recv_exact(st, c, sizeof(c), sizeof(c), why, whylen) != 0)
		goto out;
	kill(death_child_pid, SIGKILL);
	waitpid(death_child_pid, NULL, 0);
	remove_shm_regions_of(death_child_pid);

	/* No data will come: the receive gives up (timeout, or the provider's error). */
	n = fastrmi_recv(st, buf, 1, 300, err, sizeof(err));
	if (n >= 0) {
		snprintf(why, whylen, "recv from a dead peer = %" PRId64, n);
		goto out;
	}
	fprintf(stderr, "# %s: recv from the dead peer: %" PRId64 " (%s)\n", s->cfg->label, n, err);
	/* Sending does not hang either (it may go as far as the window). */
	memset(buf, 0, beyond_window);
	n = fastrmi_send(st, buf, beyond_window, 500, err, sizeof(err));
	if (n == (int64_t)beyond_window) {
		snprintf(why, whylen, "%zu bytes (twice the window) went to a dead peer", beyond_window);
		goto out;
	}
	fprintf(stderr, "# %s: send to the dead peer: %" PRId64 " (%s)\n", s->cfg->label, n, err);
	fastrmi_stream_abort(st);
	n = fastrmi_recv(st, buf, 1, -1, err, sizeof(err));
	if (n != FASTRMI_ERR_ABORTED) {
		snprintf(why, whylen, "recv after abort = %" PRId64 " (%s)", n, err);
		goto out;
	}
	fastrmi_stream_close(st);
	st = NULL;
	/* ofi keeps the dead peer's place (and libfabric its region) until the context closes, and
	 * says so, so that the caller can close a spent context; UCX frees it with its last stream. */
	n = fastrmi_ctx_peers_gone(s->ctx);
	if (n != (s->cfg->backend == FASTRMI_BACKEND_OFI && strcmp(s->cfg->provider, "shm") == 0 ? 1 : 0)) {
		snprintf(why, whylen, "fastrmi_ctx_peers_gone = %" PRId64 " after the peer died and its stream closed", n);
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	free(buf);
	return ret;
}

static int death_child(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;

	if (open_stream(s, 2, 1, &st, why, whylen) != 0)
		return -1;
	if (send_all(st, "0123456789", 10, why, whylen) != 0)
		return -1;
	pause(); /* until SIGKILL */
	return -1;
}

/* ---- an idle blocked reader costs no CPU -------------------------------------------- */

static double idle_cpu, idle_wall;

static int idle_parent(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	char err[ERRMSG], c = 0;
	double cpu0, wall0;
	int64_t n;
	int ret = -1;

	if (open_stream(s, 1, 2, &st, why, whylen) != 0 || sync_wait(s) != 0)
		goto out;
	/* A first byte, untimed: connecting may take both sides' progress (UCX wire-up), and the
	 * peer is idle from here on. */
	n = fastrmi_recv(st, &c, 1, 10000, err, sizeof(err));
	if (n != 1 || c != 'r') {
		snprintf(why, whylen, "first recv = %" PRId64 " (%s)", n, err);
		goto out;
	}
	cpu0 = now_sec(CLOCK_PROCESS_CPUTIME_ID);
	wall0 = now_sec(CLOCK_MONOTONIC);
	n = fastrmi_recv(st, &c, 1, -1, err, sizeof(err));
	idle_cpu = now_sec(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	idle_wall = now_sec(CLOCK_MONOTONIC) - wall0;
	if (n != 1 || c != 'x') {
		snprintf(why, whylen, "recv = %" PRId64 " (%s)", n, err);
		goto out;
	}
	if (idle_wall < 0.8 || idle_cpu > 0.2) {
		snprintf(why, whylen, "blocked %.2f s and used %.3f s of CPU (busy-waiting?)",
			 idle_wall, idle_cpu);
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	return ret;
}

static int idle_child(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	int ret = -1;

	if (open_stream(s, 2, 1, &st, why, whylen) != 0 || sync_send(s) != 0 ||
	    send_all(st, "r", 1, why, whylen) != 0)
		goto out;
	sleep(1);
	ret = send_all(st, "x", 1, why, whylen);
out:
	fastrmi_stream_close(st);
	return ret;
}

/* ---- the thread a message is for is the one woken ------------------------------------ *
 *
 * Without a doorbell (across hosts) every message wakes whichever thread sleeps in the provider's
 * wait object. A ping-pong beside a thread blocked on an idle stream, every wait blocking: the
 * ping-pong's thread must be the one woken there, the idle one sleeps through it (it wakes only
 * for the deputy's looks, and for a message the look left it to take), on both sides. */

#define WAKE_ROUND_TRIPS 400

struct idle_reader {
	struct blocked_recv recv;
	pid_t tid;
};

static void *idle_reader_thread(void *p)
{
	struct idle_reader *r = p;

	__atomic_store_n(&r->tid, (pid_t)gettid(), __ATOMIC_RELEASE);
	return blocked_recv_thread(&r->recv);
}

struct wake_counts {
	uint64_t polled, for_others, looks;
	long switches; /* the idle thread's */
};

/*
 * The ping-pong of wake_side, the parent pausing pause_us before each ping when pause_us > 0 (a
 * client's think time). Returns 0 with the counts of this side's round trips in *counts.
 */
static int wake_pingpong(struct side *s, int trips, useconds_t pause_us, struct wake_counts *counts, char *why,
			 size_t whylen)
{
	fastrmi_stream *st = NULL, *idle = NULL;
	struct idle_reader reader = { 0 };
	struct fastrmi_wait_counts before, after;
	pthread_t thread;
	int started = 0, ret = -1;
	long switches0, switches;
	char err[ERRMSG], buf[8] = "ping";

	if (fastrmi_ctx_set_wait(s->ctx, FASTRMI_WAIT_BLOCK, 0, err, sizeof(err)) != 0 ||
	    open_stream(s, s->is_child ? 2 : 1, s->is_child ? 1 : 2, &st, why, whylen) != 0 ||
	    open_stream(s, s->is_child ? 4 : 3, s->is_child ? 3 : 4, &idle, why, whylen) != 0)
		goto out;
	reader.recv.st = idle;
	if (pthread_create(&thread, NULL, idle_reader_thread, &reader) != 0) {
		snprintf(why, whylen, "pthread_create failed");
		goto out;
	}
	started = 1;
	/* Wire-up first, and the idle thread asleep. */
	if (s->is_child ? recv_exact(st, buf, 4, 4, why, whylen) != 0 : send_all(st, buf, 4, why, whylen) != 0)
		goto out;
	if (s->is_child ? send_all(st, buf, 4, why, whylen) != 0 : recv_exact(st, buf, 4, 4, why, whylen) != 0)
		goto out;
	usleep(50000);
	/* On a loaded machine the idle thread may not have run yet: its tid first. */
	for (int i = 0; i < 5000 && __atomic_load_n(&reader.tid, __ATOMIC_ACQUIRE) == 0; i++)
		usleep(1000);
	fastrmi_ctx_wait_counts(s->ctx, &before);
	switches0 = thread_switches(__atomic_load_n(&reader.tid, __ATOMIC_ACQUIRE));
	for (int i = 0; i < trips; i++) {
		if (!s->is_child && pause_us > 0)
			usleep(pause_us);
		if (!s->is_child && send_all(st, buf, 4, why, whylen) != 0)
			goto out;
		if (recv_exact(st, buf, 4, 4, why, whylen) != 0)
			goto out;
		if (s->is_child && send_all(st, buf, 4, why, whylen) != 0)
			goto out;
	}
	fastrmi_ctx_wait_counts(s->ctx, &after);
	switches = thread_switches(reader.tid);
	/* Neither side closes its idle stream before the other has read its counts: the close ends
	 * the other's idle recv (end of stream), and its thread's switches are then gone (a
	 * fresh-clone make test under ASan met it once). */
	if (s->is_child ? recv_exact(st, buf, 4, 4, why, whylen) != 0 || send_all(st, buf, 4, why, whylen) != 0
			: send_all(st, buf, 4, why, whylen) != 0 || recv_exact(st, buf, 4, 4, why, whylen) != 0)
		goto out;
	if (switches0 < 0 || switches < 0) {
		if (switches < 0 && switches0 >= 0) { /* its recv returned: joined, it says why */
			pthread_join(thread, NULL);
			started = 0;
			snprintf(why, whylen, "the idle thread's recv returned during the ping-pong: %" PRId64 " (%s)",
				 reader.recv.ret, reader.recv.err);
			goto out;
		}
		snprintf(why, whylen, "cannot read the idle thread's context switches (tid %d)", (int)reader.tid);
		goto out;
	}
	counts->polled = after.woken_in_provider - before.woken_in_provider;
	counts->for_others = after.woken_for_others - before.woken_for_others;
	counts->looks = after.deputy_looks - before.deputy_looks;
	counts->switches = switches - switches0;
	ret = 0;
out:
	fastrmi_stream_abort(idle);
	if (started)
		pthread_join(thread, NULL);
	fastrmi_stream_close(st);
	fastrmi_stream_close(idle);
	return ret;
}

static int wake_side(struct side *s, char *why, size_t whylen)
{
	struct wake_counts c;

	if (wake_pingpong(s, WAKE_ROUND_TRIPS, 0, &c, why, whylen) != 0)
		return -1;
	/* Each look, and each message a look took for the ping-pong, may switch the idle thread in
	 * and out a few times (the wake-up, the context's lock, a preemption); without the rule it
	 * wakes for every message (more than WAKE_ROUND_TRIPS). The slack of WAKE_ROUND_TRIPS / 4 is
	 * for a loaded machine (ucx tcp: 111 switches with 19 looks and 1 message for others under
	 * ASan once; 153 with 22 and 1 in a fresh-clone make test). */
	if (c.polled < WAKE_ROUND_TRIPS / 4 || c.for_others > c.looks + 2 ||
	    c.switches > 4 * (long)(c.looks + c.for_others) + WAKE_ROUND_TRIPS / 4) {
		snprintf(why, whylen, "%s, %d round trips: woken in the provider %" PRIu64 " times, %" PRIu64
			 " for others' messages; the idle thread switched %ld times (deputy looks %" PRIu64 ")",
			 s->is_child ? "child" : "parent", WAKE_ROUND_TRIPS, c.polled, c.for_others, c.switches, c.looks);
		return -1;
	}
	return 0;
}

/*
 * The same with think time: the parent (a client) pauses before each ping, so the child (a server)
 * takes each ping after milliseconds asleep, and its main thread leaves the provider's wait object
 * at every ping and comes back within microseconds. The child's idle thread, the deputy, is woken
 * once as the wait object is left and looks once after FR_DEPUTY_NSEC; its looks did double again
 * from FR_DEPUTY_NSEC at every ping (4 looks a ping 5 ms apart, 4-6 wake-ups of a server's idle
 * connection reader per call across hosts). The parent's deputy rightly takes the wait object
 * over during each pause: not counted.
 */
#define PACED_WAKE_TRIPS 40
#define PACED_WAKE_PAUSE_US 5000

static int paced_wake_side(struct side *s, char *why, size_t whylen)
{
	struct wake_counts c;

	if (wake_pingpong(s, PACED_WAKE_TRIPS, PACED_WAKE_PAUSE_US, &c, why, whylen) != 0)
		return -1;
	if (s->is_child && (c.looks > PACED_WAKE_TRIPS + PACED_WAKE_TRIPS / 4 ||
			    c.switches > 4 * PACED_WAKE_TRIPS)) {
		snprintf(why, whylen, "child, %d round trips %d us apart: the idle thread switched %ld times, "
			 "deputy looks %" PRIu64 " (woken in the provider %" PRIu64 " times, %" PRIu64 " for others)",
			 PACED_WAKE_TRIPS, PACED_WAKE_PAUSE_US, c.switches, c.looks, c.polled, c.for_others);
		return -1;
	}
	return 0;
}

/* ---- a call that calls back: the caller keeps the wait object ------------------------ *
 *
 * The parent's caller sends a call on stream 1 and waits for its reply; the child answers only
 * after calling back on stream 3, which the parent's handler thread answers. Every wait blocks.
 * Of the parent's two waiting threads, the caller (whose reply comes next after the call back)
 * keeps the provider's wait object: only the call back is a message for another thread, one per
 * call, where a poller that always left it would hand over both. */

#define CALLBACK_CALLS 300

static void *callback_handler(void *p)
{
	fastrmi_stream *st = p;
	char buf[4], err[ERRMSG];

	for (;;) {
		int64_t n = fastrmi_recv(st, buf, sizeof(buf), -1, err, sizeof(err));

		if (n <= 0 || fastrmi_send(st, buf, (size_t)n, -1, err, sizeof(err)) != n)
			return NULL;
	}
}

static int callback_parent(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *call = NULL, *back = NULL;
	struct fastrmi_wait_counts before, after;
	pthread_t handler;
	int started = 0, ret = -1;
	char err[ERRMSG], buf[4] = "call";
	uint64_t for_others;

	if (fastrmi_ctx_set_wait(s->ctx, FASTRMI_WAIT_BLOCK, 0, err, sizeof(err)) != 0 ||
	    open_stream(s, 1, 2, &call, why, whylen) != 0 || open_stream(s, 3, 4, &back, why, whylen) != 0)
		goto out;
	if (pthread_create(&handler, NULL, callback_handler, back) != 0) {
		snprintf(why, whylen, "pthread_create failed");
		goto out;
	}
	started = 1;
	for (int i = 0; i < CALLBACK_CALLS; i++) {
		if (i == CALLBACK_CALLS / 3) /* the first calls teach each stream its waits */
			fastrmi_ctx_wait_counts(s->ctx, &before);
		if (send_all(call, buf, 4, why, whylen) != 0 || recv_exact(call, buf, 4, 4, why, whylen) != 0)
			goto out;
	}
	fastrmi_ctx_wait_counts(s->ctx, &after);
	for_others = after.woken_for_others - before.woken_for_others;
	if (for_others > (CALLBACK_CALLS - CALLBACK_CALLS / 3) * 3 / 2) { /* 2 per call without the rule */
		snprintf(why, whylen, "%d calls that call back: the provider's wait woke a thread for another's "
			 "message %" PRIu64 " times (deputy looks %" PRIu64 ")", CALLBACK_CALLS - CALLBACK_CALLS / 3,
			 for_others, after.deputy_looks - before.deputy_looks);
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(call); /* the child sees the end and closes its side of stream 3 */
	if (started)
		pthread_join(handler, NULL);
	fastrmi_stream_close(back);
	return ret;
}

static int callback_child(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *call = NULL, *back = NULL;
	char buf[4];
	int ret = -1;

	if (open_stream(s, 2, 1, &call, why, whylen) != 0 || open_stream(s, 4, 3, &back, why, whylen) != 0)
		goto out;
	for (int i = 0; i < CALLBACK_CALLS; i++) {
		if (recv_exact(call, buf, 4, 4, why, whylen) != 0 || send_all(back, "back", 4, why, whylen) != 0 ||
		    recv_exact(back, buf, 4, 4, why, whylen) != 0 || send_all(call, "done", 4, why, whylen) != 0)
			goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(back);
	fastrmi_stream_close(call);
	return ret;
}

/* ---- a nudge: a sleeping reader spins for data another thread knows is due -------------- *
 *
 * The parent's reader thread sleeps on stream 1 (its spin long over). Each round the child sends a
 * byte once told to on the socketpair; in the nudged rounds the parent first nudges the reader to
 * spin for 1 ms, which wakes it, and tells the child 0.2 ms later: the byte then comes while the
 * reader spins. Rounds without a nudge, or under wait = block (no spin), are answered asleep. */

#define NUDGE_ROUNDS 10
#define NUDGE_SPIN_NSEC 1000000u /* the most a nudge buys */

struct nudge_reader {
	fastrmi_stream *st;
	int rounds;
	int got;
	char err[ERRMSG];
};

static void *nudge_reader_thread(void *p)
{
	struct nudge_reader *r = p;
	char c;

	for (int i = 0; i < r->rounds; i++) {
		if (fastrmi_recv(r->st, &c, 1, -1, r->err, sizeof(r->err)) != 1 || c != (char)('a' + i))
			return NULL;
		r->got++;
	}
	return NULL;
}

/* One batch of rounds; what the context counted meanwhile goes to *delta. */
static int nudge_rounds(struct side *s, fastrmi_stream *st, int nudging, struct fastrmi_wait_counts *delta,
			char *why, size_t whylen)
{
	struct nudge_reader reader = { .st = st, .rounds = NUDGE_ROUNDS };
	struct fastrmi_wait_counts before, after;
	pthread_t thread;
	char err[ERRMSG];
	int ret = -1;

	fastrmi_ctx_wait_counts(s->ctx, &before);
	if (pthread_create(&thread, NULL, nudge_reader_thread, &reader) != 0) {
		snprintf(why, whylen, "pthread_create failed");
		return -1;
	}
	for (int i = 0; i < NUDGE_ROUNDS; i++) {
		usleep(20000); /* the reader asleep */
		if (nudging && fastrmi_stream_nudge(st, NUDGE_SPIN_NSEC, err, sizeof(err)) != 0) {
			snprintf(why, whylen, "fastrmi_stream_nudge: %s", err);
			break;
		}
		usleep(200);
		if (sync_send(s) != 0) {
			snprintf(why, whylen, "cannot tell the child to send");
			break;
		}
	}
	pthread_join(thread, NULL);
	fastrmi_ctx_wait_counts(s->ctx, &after);
	delta->nudges = after.nudges - before.nudges;
	delta->answered_nudged = after.answered_nudged - before.answered_nudged;
	if (reader.got != NUDGE_ROUNDS)
		snprintf(why, whylen, "the reader got %d of %d bytes: %s", reader.got, NUDGE_ROUNDS, reader.err);
	else
		ret = 0;
	return ret;
}

static int nudge_parent(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	struct fastrmi_wait_counts plain, nudged, blocking;
	char err[ERRMSG];
	int ret = -1;

	if (fastrmi_ctx_set_wait(s->ctx, FASTRMI_WAIT_ADAPTIVE, 0, err, sizeof(err)) != 0 ||
	    open_stream(s, 1, 2, &st, why, whylen) != 0)
		goto out;
	if (nudge_rounds(s, st, 0, &plain, why, whylen) != 0 || nudge_rounds(s, st, 1, &nudged, why, whylen) != 0)
		goto out;
	if (fastrmi_ctx_set_wait(s->ctx, FASTRMI_WAIT_BLOCK, 0, err, sizeof(err)) != 0 ||
	    nudge_rounds(s, st, 1, &blocking, why, whylen) != 0)
		goto out;
	/* A nudge finds the reader asleep (20 ms after its last byte) and is answered while it spins,
	 * but for a round whose wake-up a busy machine delayed past the byte. */
	if (plain.nudges != 0 || plain.answered_nudged != 0 || nudged.nudges != NUDGE_ROUNDS ||
	    nudged.answered_nudged < NUDGE_ROUNDS / 2 || blocking.nudges != NUDGE_ROUNDS || blocking.answered_nudged != 0) {
		snprintf(why, whylen, "%d rounds each; not nudged: %" PRIu64 " nudges, %" PRIu64 " answered nudged; "
			 "nudged: %" PRIu64 " nudges, %" PRIu64 " answered nudged; under wait = block: %" PRIu64
			 " nudges, %" PRIu64 " answered nudged", NUDGE_ROUNDS, plain.nudges, plain.answered_nudged,
			 nudged.nudges, nudged.answered_nudged, blocking.nudges, blocking.answered_nudged);
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	return ret;
}

static int nudge_child(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	int ret = -1;

	if (open_stream(s, 2, 1, &st, why, whylen) != 0)
		goto out;
	for (int i = 0; i < 3 * NUDGE_ROUNDS; i++) {
		char c = (char)('a' + i % NUDGE_ROUNDS);

		if (sync_wait(s) != 0 || send_all(st, &c, 1, why, whylen) != 0)
			goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	return ret;
}

/* ---- a nested call's wait spins past the config's spin ---------------------------------- *
 *
 * The parent serves calls on stream X (the child spoke first on it) and, inside each, calls the
 * child back on stream Y, whose handler answers after a turn of NESTED_TURN_NSEC: longer than
 * the config's spin, within FR_WAIT_NESTED_SPIN_FACTOR times it. Waited for inside the call, that
 * reply is a nested call's and is answered spinning; waited for after the call's reply went (the
 * same turn, no call open), it is not, and the thread sleeps. Counted, not timed. The child, a
 * client whose only waits follow its own requests or serve the callbacks, has no nested wait. */

#define NESTED_ROUNDS 200
#define NESTED_WARM_ROUNDS 50
#define NESTED_TURN_NSEC (SPIN_USEC * 1000u * 8u / 5u)

/* One call: inside says whether the parent calls back before its reply (nested) or after. */
static int nested_parent_call(fastrmi_stream *x, fastrmi_stream *y, int inside, char *why, size_t whylen)
{
	char c;

	if (recv_exact(x, &c, 1, 1, why, whylen) != 0)
		return -1;
	if (!inside && send_all(x, &c, 1, why, whylen) != 0)
		return -1;
	if (send_all(y, &c, 1, why, whylen) != 0 || recv_exact(y, &c, 1, 1, why, whylen) != 0)
		return -1;
	return inside ? send_all(x, &c, 1, why, whylen) : 0;
}

/* Rounds of calls: what the context counted meanwhile goes to *delta, the thread's sleeps to *sleeps. */
static int nested_parent_rounds(struct side *s, fastrmi_stream *x, fastrmi_stream *y, int inside,
				struct fastrmi_wait_counts *delta, long *sleeps, char *why, size_t whylen)
{
	struct fastrmi_wait_counts before, after;
	pid_t tid = gettid();

	for (int i = 0; i < NESTED_WARM_ROUNDS; i++)
		if (nested_parent_call(x, y, inside, why, whylen) != 0)
			return -1;
	fastrmi_ctx_wait_counts(s->ctx, &before);
	*sleeps = thread_sleeps(tid);
	for (int i = 0; i < NESTED_ROUNDS; i++)
		if (nested_parent_call(x, y, inside, why, whylen) != 0)
			return -1;
	*sleeps = thread_sleeps(tid) - *sleeps;
	fastrmi_ctx_wait_counts(s->ctx, &after);
	delta->nested = after.nested - before.nested;
	delta->nested_spun = after.nested_spun - before.nested_spun;
	return 0;
}

/* The parent's verdict on its counts (the server). */
static int nested_parent_checks(struct side *s, fastrmi_stream *x, fastrmi_stream *y, char *why, size_t whylen)
{
	struct fastrmi_wait_counts in_call, after_reply;
	long sleeps_in_call, sleeps_after_reply;

	if (nested_parent_rounds(s, x, y, 1, &in_call, &sleeps_in_call, why, whylen) != 0 ||
	    nested_parent_rounds(s, x, y, 0, &after_reply, &sleeps_after_reply, why, whylen) != 0)
		return -1;
	/* A slow send (ASan) may find the reply there when its wait would begin: no wait, none counted. */
	if (in_call.nested < NESTED_ROUNDS / 2 || in_call.nested_spun < in_call.nested / 2 || after_reply.nested != 0 ||
	    sleeps_after_reply < NESTED_ROUNDS / 2 || sleeps_in_call < 0) {
		snprintf(why, whylen, "%d calls each, the callback's turn %u us against a spin of %d us: inside the call "
			 "%" PRIu64 " nested waits, %" PRIu64 " answered spinning, %ld sleeps (wanted most callbacks' "
			 "waits nested, half of those at least answered spinning); after the call's reply %" PRIu64 " nested "
			 "waits, %ld sleeps (wanted none nested, a sleep in half at least)", NESTED_ROUNDS,
			 NESTED_TURN_NSEC / 1000u, SPIN_USEC, in_call.nested, in_call.nested_spun, sleeps_in_call,
			 after_reply.nested, sleeps_after_reply);
		return -1;
	}
	return 0;
}

/* The callback's handler: it takes NESTED_TURN_NSEC, busy, from the callback's arrival. */
static int nested_child_call(fastrmi_stream *x, fastrmi_stream *y, int inside, char *why, size_t whylen)
{
	char c = 'c';
	double until;

	if (send_all(x, &c, 1, why, whylen) != 0)
		return -1;
	if (!inside && recv_exact(x, &c, 1, 1, why, whylen) != 0)
		return -1;
	if (recv_exact(y, &c, 1, 1, why, whylen) != 0)
		return -1;
	until = now_sec(CLOCK_MONOTONIC) + NESTED_TURN_NSEC / 1e9;
	while (now_sec(CLOCK_MONOTONIC) < until)
		;
	if (send_all(y, &c, 1, why, whylen) != 0)
		return -1;
	return inside ? recv_exact(x, &c, 1, 1, why, whylen) : 0;
}

/* The child's verdict (the client): none of its waits is a nested call's. */
static int nested_child_checks(struct side *s, fastrmi_stream *x, fastrmi_stream *y, char *why, size_t whylen)
{
	struct fastrmi_wait_counts counts;

	for (int inside = 1; inside >= 0; inside--)
		for (int i = 0; i < NESTED_WARM_ROUNDS + NESTED_ROUNDS; i++)
			if (nested_child_call(x, y, inside, why, whylen) != 0)
				return -1;
	fastrmi_ctx_wait_counts(s->ctx, &counts);
	if (counts.nested != 0) {
		snprintf(why, whylen, "the client's waits for its replies and its callbacks: %" PRIu64 " nested, wanted none",
			 counts.nested);
		return -1;
	}
	return 0;
}

/* One call: the parent sends "call" and waits for the reply; the child answers late_usec late (so
 * that the parent's read surely waits). */
static int pause_call(struct side *s, fastrmi_stream *st, unsigned late_usec, char *why, size_t whylen)
{
	char buf[4] = "call";

	if (!s->is_child)
		return send_all(st, buf, 4, why, whylen) != 0 || recv_exact(st, buf, 4, 4, why, whylen) != 0 ? -1 : 0;
	if (recv_exact(st, buf, 4, 4, why, whylen) != 0)
		return -1;
	if (late_usec > 0)
		usleep(late_usec);
	return send_all(st, buf, 4, why, whylen) != 0 ? -1 : 0;
}

/* Waits after a pause counted on this side between two looks; -1 when want differs (why says so). */
static int pause_count(struct side *s, const struct fastrmi_wait_counts *before, uint64_t want, const char *when,
		       char *why, size_t whylen)
{
	struct fastrmi_wait_counts after;

	fastrmi_ctx_wait_counts(s->ctx, &after);
	if (after.after_pause - before->after_pause == want)
		return 0;
	snprintf(why, whylen, "%s, %s: %" PRIu64 " waits after a pause, want %" PRIu64, s->is_child ? "callee" : "caller",
		 when, after.after_pause - before->after_pause, want);
	return -1;
}

/*
 * Calls back to back make no wait after a pause. A call after the caller paused 5 ms does under
 * adaptive waiting: the caller's wait for the reply (no spin); not the callee's wait for that call,
 * which began right after its last data, however long it lasted. Other wait modes keep their
 * rule: none counts.
 */
static int pause_side(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	struct fastrmi_wait_counts before;
	int adaptive = s->cfg->wait_mode == FASTRMI_WAIT_ADAPTIVE;
	int ret = -1;

	if (open_stream(s, s->is_child ? 2 : 1, s->is_child ? 1 : 2, &st, why, whylen) != 0)
		goto out;
	fastrmi_ctx_wait_counts(s->ctx, &before);
	for (int i = 0; i < 3; i++)
		if (pause_call(s, st, 0, why, whylen) != 0)
			goto out;
	if (pause_count(s, &before, 0, "back to back", why, whylen) != 0)
		goto out;
	fastrmi_ctx_wait_counts(s->ctx, &before);
	if (!s->is_child)
		usleep(5000); /* the caller thinks */
	if (pause_call(s, st, 1000, why, whylen) != 0 ||
	    pause_count(s, &before, adaptive && !s->is_child ? 1 : 0, "a call after 5 ms", why, whylen) != 0)
		goto out;
	ret = 0;
out:
	fastrmi_stream_close(st);
	return ret;
}

/* ---- a transfer's waits spin through it ----------------------------------------------- *
 *
 * Echoes of 1 MiB, then of 4 B, under adaptive waiting: the echoes' waits for the rest of a
 * transfer (the parent's for its reply while its own messages are still going out, the child's
 * for the rest after a large message) spin through it (wait.h, FR_WAIT_STREAMING_NSEC), where
 * they slept and left the other end waiting for their wake-up; a 4 B echo's waits are never such.
 * Only once the process is warm (its first FR_WAIT_COLD_WAITS waits): small echoes first.
 */
#define STREAMING_ECHOES 20
#define STREAMING_WARM_ECHOES 12000
#define STREAMING_BYTES (1024 * 1024)

static int streaming_echoes(struct side *s, fastrmi_stream *st, unsigned char *buf, size_t len, int echoes,
			    char *why, size_t whylen)
{
	for (int i = 0; i < echoes; i++) {
		if (!s->is_child && send_all(st, buf, len, why, whylen) != 0)
			return -1;
		if (recv_exact(st, buf, len, len, why, whylen) != 0)
			return -1;
		if (s->is_child && send_all(st, buf, len, why, whylen) != 0)
			return -1;
	}
	return 0;
}

static int streaming_side(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	struct fastrmi_wait_counts before, after;
	unsigned char *buf = malloc(STREAMING_BYTES);
	uint64_t large, small;
	int ret = -1;

	if (buf == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	memset(buf, 0x5a, STREAMING_BYTES);
	if (open_stream(s, s->is_child ? 2 : 1, s->is_child ? 1 : 2, &st, why, whylen) != 0 ||
	    streaming_echoes(s, st, buf, 4, STREAMING_WARM_ECHOES, why, whylen) != 0)
		goto out;
	fastrmi_ctx_wait_counts(s->ctx, &before);
	if (streaming_echoes(s, st, buf, STREAMING_BYTES, STREAMING_ECHOES, why, whylen) != 0)
		goto out;
	fastrmi_ctx_wait_counts(s->ctx, &after);
	large = after.streamed - before.streamed;
	usleep(2000); /* the last large message's rule ends (FR_WAIT_STREAMING_NSEC) */
	fastrmi_ctx_wait_counts(s->ctx, &before);
	if (streaming_echoes(s, st, buf, 4, STREAMING_ECHOES, why, whylen) != 0)
		goto out;
	fastrmi_ctx_wait_counts(s->ctx, &after);
	small = after.streamed - before.streamed;
	if (large < STREAMING_ECHOES || small != 0) {
		snprintf(why, whylen, "%s: %" PRIu64 " waits spun through a transfer in %d echoes of 1 MiB (want %d or "
			 "more), %" PRIu64 " in as many of 4 B (want 0)", s->is_child ? "child" : "parent", large,
			 STREAMING_ECHOES, STREAMING_ECHOES, small);
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	free(buf);
	return ret;
}

/* ---- a transfer's messages land in the window ------------------------------------------ *
 *
 * On a backend that receives in pieces (UCX), a stream amid large messages
 * receives them straight into its window, one copy less than through its receive buffer
 * (message.c, fr_rx_aim); a stream of small messages never does, so its window starts over at its
 * first pages. The echoes are of 1 MiB and 4 KiB more, read in odd pieces, so that messages land
 * across the window's end and behind bytes not yet read; every byte is checked. Then the child
 * closes amid the parent's next transfer: its receive posted into the window drains what still
 * comes (AddressSanitizer sees a write after the window went).
 */
#define WINDOW_SMALL_ECHOES 200
#define WINDOW_ECHOES 12
#define WINDOW_BYTES (MIB + 4096)

/* Whether the config's messages can land in the window: receives in pieces (UCX; not libfabric, ofi.c). */
static int window_receives(const struct config *cfg)
{
	return cfg->backend == FASTRMI_BACKEND_UCX;
}

static int window_echoes(struct side *s, fastrmi_stream *st, unsigned char *buf, size_t len, int echoes,
			 char *why, size_t whylen)
{
	for (int i = 0; i < echoes; i++) {
		size_t bad;

		if (!s->is_child)
			fill(buf, len, (unsigned)i);
		if ((!s->is_child && send_all(st, buf, len, why, whylen) != 0) ||
		    recv_exact(st, buf, len, 70001 + (size_t)i * 4099, why, whylen) != 0)
			return -1;
		bad = verify(buf, len, (unsigned)i);
		if (bad != len) {
			snprintf(why, whylen, "echo %d of %zu bytes differs at byte %zu", i, len, bad);
			return -1;
		}
		if (s->is_child && send_all(st, buf, len, why, whylen) != 0)
			return -1;
	}
	return 0;
}

static int window_side(struct side *s, char *why, size_t whylen)
{
	struct fastrmi_receive_counts before, small, large;
	fastrmi_stream *st = NULL, *after = NULL;
	unsigned char *buf = malloc(WINDOW_BYTES);
	uint64_t want_large;
	char err[ERRMSG];
	int ret = -1;

	if (buf == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	if (open_stream(s, s->is_child ? 2 : 1, s->is_child ? 1 : 2, &st, why, whylen) != 0)
		goto out;
	fastrmi_ctx_receive_counts(s->ctx, &before);
	if (window_echoes(s, st, buf, 4, WINDOW_SMALL_ECHOES, why, whylen) != 0)
		goto out;
	fastrmi_ctx_receive_counts(s->ctx, &small);
	if (window_echoes(s, st, buf, WINDOW_BYTES, WINDOW_ECHOES, why, whylen) != 0)
		goto out;
	fastrmi_ctx_receive_counts(s->ctx, &large);
	/* All but each echo's first message, which follows a small one: most of a transfer's bytes. */
	want_large = window_receives(s->cfg) ? (uint64_t)WINDOW_ECHOES * WINDOW_BYTES * 3 / 4 : 0;
	if (small.bytes_in_window != before.bytes_in_window ||
	    small.bytes_through_buffer == before.bytes_through_buffer || /* the first may come as the stream opens */
	    (want_large > 0 && large.bytes_in_window - small.bytes_in_window < want_large) ||
	    (want_large == 0 && large.bytes_in_window != small.bytes_in_window)) {
		snprintf(why, whylen, "%s: %d echoes of 4 B received %" PRIu64 " B into the window, %" PRIu64
			 " B through the buffer (want 0 and up to %d); %d of %d B received %" PRIu64 " B into the window "
			 "(want %s%" PRIu64 ")", s->is_child ? "child" : "parent", WINDOW_SMALL_ECHOES,
			 small.bytes_in_window - before.bytes_in_window,
			 small.bytes_through_buffer - before.bytes_through_buffer, 4 * WINDOW_SMALL_ECHOES,
			 WINDOW_ECHOES, WINDOW_BYTES, large.bytes_in_window - small.bytes_in_window,
			 want_large > 0 ? "at least " : "", want_large);
		goto out;
	}
	/* The parent's last byte on `after` comes once its closed transfer is all out: the child's wait
	 * for it makes progress, which drains that transfer into the closed stream's window. */
	if (open_stream(s, s->is_child ? 4 : 3, s->is_child ? 3 : 4, &after, why, whylen) != 0)
		goto out;
	if (s->is_child) {
		/* The parent's next transfer has begun: close amid it. */
		if (recv_exact(st, buf, 4096, 4096, why, whylen) != 0)
			goto out;
		fastrmi_stream_close(st);
		st = NULL;
		if (recv_exact(after, buf, 1, 1, why, whylen) != 0)
			goto out;
	} else {
		int64_t n = fastrmi_send(st, buf, WINDOW_BYTES, 5000, err, sizeof(err));

		if (n < 0 && n != FASTRMI_ERR_RESET && n != FASTRMI_ERR_TIMEOUT) {
			snprintf(why, whylen, "the send the child closed amid = %" PRId64 ", not a reset: %s", n, err);
			goto out;
		}
		fastrmi_stream_close(st);
		st = NULL;
		if (send_all(after, buf, 1, why, whylen) != 0)
			goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(after);
	fastrmi_stream_close(st);
	free(buf);
	return ret;
}

/* X carries the child's calls (ids 1 and 2), Y the parent's callbacks (3 and 4). */
static int nested_side(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *x = NULL, *y = NULL;
	int ret = -1;

	if (open_stream(s, s->is_child ? 2 : 1, s->is_child ? 1 : 2, &x, why, whylen) == 0 &&
	    open_stream(s, s->is_child ? 4 : 3, s->is_child ? 3 : 4, &y, why, whylen) == 0)
		ret = s->is_child ? nested_child_checks(s, x, y, why, whylen) : nested_parent_checks(s, x, y, why, whylen);
	fastrmi_stream_close(y);
	fastrmi_stream_close(x);
	return ret;
}

/* ---- bytes already there ------------------------------------------------------------ *
 *
 * RMI's buffered reads take a message in several receives. Once its bytes are in the stream's
 * window, those receives copy them out without polling the provider, which costs more than
 * the copy. */

#define THERE_BYTES 64

static int there_parent(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	struct fastrmi_wait_counts before, after;
	char err[ERRMSG], c;
	int64_t n = 0;
	int ret = -1;

	if (open_stream(s, 1, 2, &st, why, whylen) != 0)
		goto out;
	/*
	 * fastrmi_available polls the provider; a wait that finds bytes there does not. Polled before
	 * anything else: over ucx:tcp the child's send ends only once this side's worker has answered
	 * the connection's wire-up.
	 */
	for (int tries = 0; (n = (int64_t)fastrmi_available(st)) < THERE_BYTES; tries++) {
		if (tries == 5000) {
			snprintf(why, whylen, "%" PRId64 " of %d bytes came in 5 s", n, THERE_BYTES);
			goto out;
		}
		usleep(1000);
	}
	fastrmi_ctx_wait_counts(s->ctx, &before);
	for (int i = 0; i < THERE_BYTES; i++) {
		if (fastrmi_recv(st, &c, 1, 0, err, sizeof(err)) != 1 || c != (char)i) {
			snprintf(why, whylen, "byte %d: %s", i, err[0] != '\0' ? err : "wrong value");
			goto out;
		}
	}
	fastrmi_ctx_wait_counts(s->ctx, &after);
	if (after.provider_polls != before.provider_polls) {
		snprintf(why, whylen, "%d one-byte reads of bytes already there polled the provider %" PRIu64 " times",
			 THERE_BYTES, after.provider_polls - before.provider_polls);
		goto out;
	}
	ret = sync_wait(s) == 0 && sync_send(s) == 0 ? 0 : -1;
out:
	fastrmi_stream_close(st);
	return ret;
}

static int there_child(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	char buf[THERE_BYTES];
	int ret = -1;

	for (int i = 0; i < THERE_BYTES; i++)
		buf[i] = (char)i;
	if (open_stream(s, 2, 1, &st, why, whylen) != 0 || send_all(st, buf, sizeof(buf), why, whylen) != 0 ||
	    sync_send(s) != 0 || sync_wait(s) != 0)
		goto out;
	ret = 0;
out:
	fastrmi_stream_close(st);
	return ret;
}

/* ---- a crowded machine: sleepers on the doorbell slots' pipes ----------------------------- *
 *
 * With more runnable threads than cores, a waiter on a doorbell context sleeps on its slot's
 * pipe (doorbell.c), so each ring is a pipe write. A ping-pong beside busy processes: every
 * reply arrives, each side has made pipes (KINDpipe-PID-...) while its context is open, and the
 * context's close removes them. */

#define CROWD_SEC 0.5
#define CROWD_MIN_ROUND_TRIPS 200

static pid_t crowd[16];
static int crowd_size;

/* Pins the calling thread to cpu: 0, or -1 (errno). */
static int pin_thread(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* One more busy process in crowd[] (pinned to cpu, unless -1). */
static void crowd_add(int cpu)
{
	crowd[crowd_size] = fork();
	if (crowd[crowd_size] == 0) {
		alarm(TEST_ALARM_SEC);
		if (cpu >= 0 && pin_thread(cpu) != 0)
			_exit(1);
		for (volatile unsigned long x = 0;; x++)
			;
	}
	crowd_size++;
}

/* Busy processes: one more than this process may use cores, so the machine is crowded. */
static void crowd_start(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int size = cpus < 1 ? 2 : cpus >= 15 ? 16 : (int)cpus + 1;

	while (crowd_size < size)
		crowd_add(-1);
}

static void crowd_stop(void)
{
	for (int i = 0; i < crowd_size; i++) {
		if (crowd[i] <= 0)
			continue;
		kill(crowd[i], SIGKILL);
		while (waitpid(crowd[i], NULL, 0) < 0 && errno == EINTR)
			;
	}
	crowd_size = 0;
}

/* How many pipes of process pid are in the user's folder. */
static int pipes_of(pid_t pid)
{
	char pattern[128];
	glob_t g;
	int n;

	snprintf(pattern, sizeof(pattern), "/dev/shm/fastrmi-%u/*pipe-ns*-%d-*", fastrmi_process_uid(), (int)pid);
	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;
	n = (int)g.gl_pathc;
	globfree(&g);
	return n;
}

/* How many descriptors of this process are doorbell pipes (ours or a peer's: KINDpipe-PID-...). */
static int pipe_fds_open(void)
{
	char path[300], target[256];
	struct dirent *entry;
	ssize_t n;
	int count = 0;
	DIR *dir = opendir("/proc/self/fd");

	if (dir == NULL)
		return -1;
	while ((entry = readdir(dir)) != NULL) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", entry->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, "/dev/shm/fastrmi-") != NULL && strstr(target, "pipe-") != NULL)
			count++;
	}
	if (closedir(dir) != 0)
		return -1;
	return count;
}

/* Whether this process has made the pipe of the doorbell slot of its stream local_id. */
static int has_pipe_for(uint64_t local_id)
{
	char pattern[160];
	glob_t g;
	int found;

	snprintf(pattern, sizeof(pattern), "/dev/shm/fastrmi-%u/*pipe-ns*-%d-*-%u", fastrmi_process_uid(), (int)getpid(),
		 (unsigned)(local_id % 1024)); /* FR_BELL_SLOTS */
	found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
	if (found)
		globfree(&g);
	return found;
}

/*
 * Beside the ping-pong, CROWD_IDLE_STREAMS idle streams with a reader each, asleep for longer than
 * FR_WAIT_OWN_CROWD_NSEC before the ping-pong starts: more than this VM's CPUs, but they do not make
 * the crowd ours (a server's pooled connections), so the ping-pong's sleepers still take the pipe.
 */
#define CROWD_IDLE_STREAMS 4
#define CROWD_IDLE_ASLEEP_USEC 50000

static int crowd_side(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL, *idle[CROWD_IDLE_STREAMS] = { NULL };
	struct blocked_recv readers[CROWD_IDLE_STREAMS] = { 0 };
	pthread_t threads[CROWD_IDLE_STREAMS];
	int started = 0;
	double t0;
	uint32_t i, v;
	int ret = -1;

	for (int k = 0; k < CROWD_IDLE_STREAMS; k++) {
		uint64_t mine = 10 + 2 * (uint64_t)k + (s->is_child ? 1 : 0), theirs = 10 + 2 * (uint64_t)k + (s->is_child ? 0 : 1);

		if (open_stream(s, mine, theirs, &idle[k], why, whylen) != 0)
			goto out;
		readers[k].st = idle[k];
		if (pthread_create(&threads[k], NULL, blocked_recv_thread, &readers[k]) != 0) {
			snprintf(why, whylen, "pthread_create failed");
			goto out;
		}
		started++;
	}
	usleep(CROWD_IDLE_ASLEEP_USEC);
	if (open_stream(s, s->is_child ? 2 : 1, s->is_child ? 1 : 2, &st, why, whylen) != 0)
		goto out;
	t0 = now_sec(CLOCK_MONOTONIC);
	/* The parent decides when to stop (UINT32_MAX) and both leave only through it: a loop
	 * condition that looked at the clock too would let the parent leave without telling the
	 * child when the time ran out between its two looks (the child then read the end of the
	 * stream; a preempted parent on this crowded machine made that happen). */
	for (i = 0;; i++) {
		if (!s->is_child && send_all(st, &i, sizeof(i), why, whylen) != 0)
			goto out;
		if (recv_exact(st, &v, sizeof(v), sizeof(v), why, whylen) != 0)
			goto out;
		if (v != i && !(s->is_child && v == UINT32_MAX)) {
			snprintf(why, whylen, "round trip %u got %u", i, v);
			goto out;
		}
		if (s->is_child && send_all(st, &v, sizeof(v), why, whylen) != 0)
			goto out;
		if (v == UINT32_MAX)
			break;
		if (!s->is_child && i + 1 >= CROWD_MIN_ROUND_TRIPS && now_sec(CLOCK_MONOTONIC) - t0 >= CROWD_SEC) {
			/* The last: the child stops after echoing it. */
			v = UINT32_MAX;
			if (send_all(st, &v, sizeof(v), why, whylen) != 0 ||
			    recv_exact(st, &v, sizeof(v), sizeof(v), why, whylen) != 0)
				goto out;
			break;
		}
	}
	if (!has_pipe_for(s->is_child ? 2 : 1)) {
		snprintf(why, whylen, "%u round trips beside %d busy processes and %d idle streams, and no doorbell pipe "
			 "made for the ping-pong's stream", i, crowd_size, CROWD_IDLE_STREAMS);
		goto out;
	}
	/* The streams' pipes go with them, while their context stays open (issue 32: a server with
	 * client churn kept one per slot its streams ever used, and the peers' too). */
	fastrmi_stream_close(st);
	st = NULL;
	for (; started > 0; started--) {
		fastrmi_stream_abort(idle[started - 1]);
		pthread_join(threads[started - 1], NULL);
	}
	for (int k = 0; k < CROWD_IDLE_STREAMS; k++) {
		fastrmi_stream_close(idle[k]);
		idle[k] = NULL;
	}
	if (pipes_of(getpid()) != 0 || pipe_fds_open() != 0) {
		snprintf(why, whylen, "after the stream closed, its context open: %d pipes of ours in the user's folder, "
			 "%d pipe descriptors open", pipes_of(getpid()), pipe_fds_open());
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	for (; started > 0; started--) {
		fastrmi_stream_abort(idle[started - 1]);
		pthread_join(threads[started - 1], NULL);
	}
	for (int k = 0; k < CROWD_IDLE_STREAMS; k++)
		fastrmi_stream_close(idle[k]);
	return ret;
}

static void test_crowded(const struct config *cfg)
{
	char why[ERRLEN] = "";
	pid_t child_pid = 0;
	int parent, child;

	crowd_start();
	parent = run_pair(cfg, crowd_side, crowd_side, why, sizeof(why), &child_pid, &child);
	crowd_stop();
	if (parent == 0 && (pipes_of(getpid()) != 0 || pipes_of(child_pid) != 0)) {
		snprintf(why, sizeof(why), "pipes left after the contexts closed: %d of ours, %d of the child's",
			 pipes_of(getpid()), pipes_of(child_pid));
		parent = -1;
	}
	report(cfg, "a ping-pong on a crowded machine sleeps on its doorbell slot's pipe, idle streams asleep beside it; "
	       "closing the streams removes the pipes",
	       parent, why, child, 0);
}

/* ---- a crowded machine, a ping-pong on two CPUs or on one ------------------------------- *
 *
 * One busy process pinned to each CPU crowds the machine. A ping-pong whose two threads are
 * pinned to two CPUs spins (fr_wait_spins_though_crowded: there a spin takes nothing from the
 * peer, and a sleep costs its CPU an interrupt): its threads sleep in few round trips. Pinned
 * both to one CPU, they never spin: a spinner would hold the core its peer needs. Counted (the
 * context's crowded spins, the thread's voluntary context switches), not timed. */

#define PINNED_WARM_SEC 0.1 /* the crowd seen (FR_WAIT_CROWDED_LOOKS), the CPUs noted, the spins learnt */
#define PINNED_SEC 0.3
#define PINNED_MIN_ROUND_TRIPS 200
#define PINNED_MEASURED 0x80000000u /* a round trip the parent counts: the child counts from the first */

static int pinned_cpu[2];     /* the first two CPUs this process may use */
static int pinned_same_cpu;   /* both ends on pinned_cpu[0], else the child on pinned_cpu[1] */

/* One busy process pinned to each CPU this process may use (at most 16): 0, or -1 when fewer than 2. */
static int pinned_crowd_start(void)
{
	cpu_set_t set;
	int found = 0;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE && crowd_size < 16; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (found < 2)
			pinned_cpu[found++] = cpu;
		crowd_add(cpu);
	}
	return found == 2 ? 0 : -1;
}

static int pinned_side(struct side *s, char *why, size_t whylen)
{
	int cpu = s->is_child && !pinned_same_cpu ? pinned_cpu[1] : pinned_cpu[0];
	fastrmi_stream *st = NULL;
	pid_t tid = gettid();
	long sleeps_before = -1, sleeps;
	struct fastrmi_wait_counts before = { 0 }, after;
	uint32_t i, v, measured = 0;
	char err[ERRMSG];
	double t0, t_measured = 0;
	uint64_t spun;
	cpu_set_t mask;
	int pinned = 0, ret = -1;

	/* The CPUs named, not counted from the mask this thread is about to narrow. */
	if (fastrmi_ctx_set_wait(s->ctx, FASTRMI_WAIT_ADAPTIVE, 2, err, sizeof(err)) != 0) {
		snprintf(why, whylen, "fastrmi_ctx_set_wait: %s", err);
		goto out;
	}
	if (open_stream(s, s->is_child ? 2 : 1, s->is_child ? 1 : 2, &st, why, whylen) != 0)
		goto out;
	/* The parent's side runs on the test's own thread: the tests after this one get its mask back. */
	if (sched_getaffinity(0, sizeof(mask), &mask) != 0 || pin_thread(cpu) != 0) {
		snprintf(why, whylen, "sched_setaffinity(CPU %d): %s", cpu, strerror(errno));
		goto out;
	}
	pinned = 1;
	t0 = now_sec(CLOCK_MONOTONIC);
	/* The parent decides when each phase ends, and the child follows (crowd_side). */
	for (i = 0;; i++) {
		if (!s->is_child) {
			v = i | (t_measured > 0 ? PINNED_MEASURED : 0);
			if (send_all(st, &v, sizeof(v), why, whylen) != 0)
				goto out;
		}
		if (recv_exact(st, &v, sizeof(v), sizeof(v), why, whylen) != 0)
			goto out;
		if (s->is_child && send_all(st, &v, sizeof(v), why, whylen) != 0)
			goto out;
		if (v == UINT32_MAX)
			break;
		if ((v & PINNED_MEASURED) && sleeps_before < 0) {
			sleeps_before = thread_sleeps(tid);
			fastrmi_ctx_wait_counts(s->ctx, &before);
		}
		if (v & PINNED_MEASURED)
			measured++;
		if (!s->is_child && t_measured == 0 && now_sec(CLOCK_MONOTONIC) - t0 >= PINNED_WARM_SEC)
			t_measured = now_sec(CLOCK_MONOTONIC);
		if (!s->is_child && t_measured > 0 && measured >= PINNED_MIN_ROUND_TRIPS &&
		    now_sec(CLOCK_MONOTONIC) - t_measured >= PINNED_SEC) {
			v = UINT32_MAX;
			if (send_all(st, &v, sizeof(v), why, whylen) != 0 ||
			    recv_exact(st, &v, sizeof(v), sizeof(v), why, whylen) != 0)
				goto out;
			break;
		}
	}
	sleeps = thread_sleeps(tid);
	fastrmi_ctx_wait_counts(s->ctx, &after);
	if (sleeps_before < 0 || sleeps < 0) {
		snprintf(why, whylen, "cannot read the thread's context switches");
		goto out;
	}
	sleeps -= sleeps_before;
	spun = after.spun_crowded - before.spun_crowded;
	/* On one CPU a thread may sleep in few round trips without spinning (its peer's wake-up
	 * preempts it before it waits), so there the count of crowded spins decides. */
	if (pinned_same_cpu ? spun != 0 : spun < measured / 4 || sleeps >= (long)measured / 4) {
		snprintf(why, whylen, "%s: the %s spun in %" PRIu64 " waits and slept %ld times in %u round trips beside "
			 "%d busy processes (%s)", pinned_same_cpu ? "both ends on one CPU" : "the ends on two CPUs",
			 s->is_child ? "child" : "parent", spun, sleeps, measured, crowd_size,
			 pinned_same_cpu ? "wanted no spin: a spinner there holds the peer's core"
					 : "wanted spins in a quarter at least, sleeps in under a quarter: a spinner there "
					   "takes nothing from the peer");
		goto out;
	}
	ret = 0;
out:
	fastrmi_stream_close(st);
	(void)fastrmi_ctx_set_wait(s->ctx, s->cfg->wait_mode, 0, err, sizeof(err)); /* the mask counts again */
	if (pinned && sched_setaffinity(0, sizeof(mask), &mask) != 0 && ret == 0) {
		snprintf(why, whylen, "sched_setaffinity back to the thread's mask: %s", strerror(errno));
		ret = -1;
	}
	return ret;
}

static void test_pinned(const struct config *cfg)
{
	char why[ERRLEN] = "";
	int parent, child;

	if (pinned_crowd_start() != 0) {
		crowd_stop();
		printf("# %s: a ping-pong on two CPUs or one, crowded: skipped, fewer than 2 CPUs\n", cfg->label);
		return;
	}
	pinned_same_cpu = 0;
	parent = run_pair(cfg, pinned_side, pinned_side, why, sizeof(why), NULL, &child);
	report(cfg, "on a crowded machine a ping-pong whose ends run on two CPUs spins, sleeping in few round trips",
	       parent, why, child, 0);
	pinned_same_cpu = 1;
	parent = run_pair(cfg, pinned_side, pinned_side, why, sizeof(why), NULL, &child);
	report(cfg, "and one whose ends share a CPU never spins", parent, why, child, 0);
	crowd_stop();
}

/* ---- server opens first, then the client (the RMI connect pattern) -------------------- *
 *
 * Like FastRMI's connect: the server (parent) opens its side first, tells the client (over
 * the socket) that it did, and then blocks reading the request; only then does the client
 * open. Fresh contexts each round (the first stream between two processes is the one that
 * meets shm's connection setup), then more streams on the same pair, each server-first.
 * The client's open must return within a watchdog; each stream echoes a few bytes. */

#define SF_ROUNDS 20
#define SF_STREAMS 4
#define SF_WATCHDOG_SEC 5

static int sf_parent(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	char buf[4];

	for (uint64_t k = 0; k < SF_STREAMS; k++) {
		if (open_stream(s, 100 + k, 200 + k, &st, why, whylen) != 0 || sync_send(s) != 0 ||
		    recv_exact(st, buf, 4, 4, why, whylen) != 0 ||
		    send_all(st, buf, 4, why, whylen) != 0) {
			fastrmi_stream_close(st);
			return -1;
		}
		if (sync_wait(s) != 0) {
			snprintf(why, whylen, "client did not confirm stream %" PRIu64, k);
			fastrmi_stream_close(st);
			return -1;
		}
		fastrmi_stream_close(st);
		st = NULL;
	}
	return 0;
}

static int sf_child(struct side *s, char *why, size_t whylen)
{
	fastrmi_stream *st = NULL;
	char buf[4];
	int ret;

	for (uint64_t k = 0; k < SF_STREAMS; k++) {
		if (sync_wait(s) != 0) {
			snprintf(why, whylen, "server did not open stream %" PRIu64, k);
			return -1;
		}
		alarm(SF_WATCHDOG_SEC); /* an open that does not return kills the child */
		ret = open_stream(s, 200 + k, 100 + k, &st, why, whylen);
		alarm(TEST_ALARM_SEC);
		if (ret != 0 || send_all(st, "ping", 4, why, whylen) != 0 ||
		    recv_exact(st, buf, 4, 4, why, whylen) != 0 || memcmp(buf, "ping", 4) != 0 ||
		    sync_send(s) != 0) {
			if (why[0] == '\0')
				snprintf(why, whylen, "stream %" PRIu64 ": echo differs", k);
			fastrmi_stream_close(st);
			return -1;
		}
		fastrmi_stream_close(st);
		st = NULL;
	}
	return 0;
}

static void test_server_first(const struct config *cfg, int rounds)
{
	char why[ERRLEN] = "", name[160];
	double t0 = now_sec(CLOCK_MONOTONIC);
	int parent = 0, child = 0, i;

	for (i = 0; i < rounds; i++) {
		parent = run_pair(cfg, sf_parent, sf_child, why, sizeof(why), NULL, &child);
		if (parent != 0 || child != 0)
			break;
	}
	snprintf(name, sizeof(name), "server opens first, then the client: %d fresh context pairs "
		 "x %d streams (%d done, %.1f s)", rounds, SF_STREAMS, i, now_sec(CLOCK_MONOTONIC) - t0);
	if (parent == 0 && child != 0)
		snprintf(why, sizeof(why), "round %d: client failed or hung in fastrmi_stream_open "
			 "(exit status %d)", i, child);
	report(cfg, name, parent, why, child, 0);
}

/* ---- per configuration ---------------------------------------------------------------- */

static void run_config(const struct config *cfg)
{
	char why[ERRLEN] = "", name[128];
	int parent, child;

	if (cfg->ucx_tls != NULL)
		setenv("UCX_TLS", cfg->ucx_tls, 1);

	parent = run_pair(cfg, echo_parent, echo_child, why, sizeof(why), NULL, &child);
	report(cfg, "echo of 0 B .. 16 MiB, content verified", parent, why, child, 0);

	parent = run_pair(cfg, many_side, many_side, why, sizeof(why), NULL, &child);
	snprintf(name, sizeof(name), "%d streams at once on one context, a thread each",
		 N_STREAMS);
	report(cfg, name, parent, why, child, 0);

	if (strcmp(cfg->provider, "shm") == 0) { /* the doorbell transports, whose waits no completion ends */
		parent = run_pair(cfg, queue_parent, queue_child, why, sizeof(why), NULL, &child);
		report(cfg, "a sender refused by a full peer queue sends on when the peer drains it, with nothing "
		       "sent back", parent, why, child, 0);
	}

	parent = run_pair(cfg, flow_parent, flow_child, why, sizeof(why), NULL, &child);
	report(cfg, "sender stops at the window for a reader that does not read; slow reader gets all",
	       parent, why, child, 0);

	parent = run_pair(cfg, bulk_parent, bulk_child, why, sizeof(why), NULL, &child);
	report(cfg, "32 MiB read in pieces of all there is while another thread delivers, content verified",
	       parent, why, child, 0);

	parent = run_pair(cfg, claim_parent, claim_child, why, sizeof(why), NULL, &child);
	report(cfg, "a second reader waits while a large read copies out of the window without the lock, "
	       "content verified", parent, why, child, 0);

	parent = run_pair(cfg, received_parent, received_child, why, sizeof(why), NULL, &child);
	report(cfg, "bytes already received are taken with no provider poll, short of owing credit, and never "
	       "while another reader holds the lock", parent, why, child, 0);

	parent = run_pair(cfg, eof_parent, eof_child, why, sizeof(why), NULL, &child);
	report(cfg, "recv and wait_readable time out, abort wakes a blocked recv, half-close and close give "
	       "end of stream",
	       parent, why, child, 0);

	parent = run_pair(cfg, reset_parent, reset_child, why, sizeof(why), NULL, &child);
	report(cfg, "the reader closes with data unread: a writer waiting for credit gets a reset",
	       parent, why, child, 0);

	parent = run_pair(cfg, death_parent, death_child, why, sizeof(why), &death_child_pid, &child);
	report(cfg, "peer killed: recv and send return, abort and close free the stream, the context counts it gone",
	       parent, why, child, 1);

	parent = run_pair(cfg, idle_parent, idle_child, why, sizeof(why), NULL, &child);
	snprintf(name, sizeof(name), "a reader blocked for 1 s uses ~0 CPU (%.3f s CPU in %.2f s)",
		 idle_cpu, idle_wall);
	report(cfg, name, parent, why, child, 0);

	if (strcmp(cfg->provider, "shm") != 0) { /* the transports without a doorbell */
		parent = run_pair(cfg, wake_side, wake_side, why, sizeof(why), NULL, &child);
		report(cfg, "a ping-pong beside a thread blocked on an idle stream: the provider's wait wakes the "
		       "thread the message is for, the idle one sleeps", parent, why, child, 0);
		parent = run_pair(cfg, paced_wake_side, paced_wake_side, why, sizeof(why), NULL, &child);
		report(cfg, "the same with 5 ms between pings: the idle thread wakes about twice a ping (the "
		       "poller's leave, one look)", parent, why, child, 0);
		parent = run_pair(cfg, callback_parent, callback_child, why, sizeof(why), NULL, &child);
		report(cfg, "calls that call back: the caller keeps the provider's wait, only the call back is "
		       "handed over", parent, why, child, 0);
	}

	parent = run_pair(cfg, there_parent, there_child, why, sizeof(why), NULL, &child);
	report(cfg, "reads of bytes already in the window poll no provider", parent, why, child, 0);

	/* Only where the peer's busy turn is ours for the crowd rule (a doorbell's process): over tcp
	 * the child is another process's work, a crowd that rightly stops the spin. */
	if (cfg->wait_mode == FASTRMI_WAIT_ADAPTIVE && strcmp(cfg->provider, "shm") == 0) {
		parent = run_pair(cfg, nested_side, nested_side, why, sizeof(why), NULL, &child);
		report(cfg, "a server's wait for its callback's reply spins up to 3 spins, answered spinning; "
		       "after the call's reply the same wait sleeps", parent, why, child, 0);
	}

	/* Not ofi shm: it injects every message, of its inject size (4 KiB), so no send of its stays in
	 * flight and no message is large (wait.h). */
	if (cfg->wait_mode == FASTRMI_WAIT_ADAPTIVE &&
	    !(cfg->backend == FASTRMI_BACKEND_OFI && strcmp(cfg->provider, "shm") == 0)) {
		parent = run_pair(cfg, streaming_side, streaming_side, why, sizeof(why), NULL, &child);
		report(cfg, "adaptive waiting: waits inside a 1 MiB echo spin through the transfer, a 4 B echo's never",
		       parent, why, child, 0);
	}

	parent = run_pair(cfg, window_side, window_side, why, sizeof(why), NULL, &child);
	report(cfg, window_receives(cfg) ?
	       "a transfer's messages land straight in the window, small messages' never; a close amid one" :
	       "no message lands straight in the window (no receives in pieces); a close amid a transfer",
	       parent, why, child, 0);

	parent = run_pair(cfg, pause_side, pause_side, why, sizeof(why), NULL, &child);
	report(cfg, "adaptive waiting: the wait for a reply after a 5 ms pause does not spin, the callee's wait "
	       "for that call is no wait after a pause", parent, why, child, 0);

	parent = run_pair(cfg, nudge_parent, nudge_child, why, sizeof(why), NULL, &child);
	report(cfg, "a nudge wakes a sleeping reader to spin, and its data is answered spinning; none under wait = block",
	       parent, why, child, 0);

	test_server_first(cfg, cfg->backend == FASTRMI_BACKEND_OFI && strcmp(cfg->provider, "shm") == 0 ? SF_ROUNDS : 5);

	if (strcmp(cfg->provider, "shm") == 0) /* the transports with a doorbell */
		test_crowded(cfg);
	if (strcmp(cfg->provider, "shm") == 0 && cfg->wait_mode == FASTRMI_WAIT_ADAPTIVE)
		test_pinned(cfg);

	unsetenv("UCX_TLS");
}

/* ---- without a peer ------------------------------------------------------------------ */

static void test_errors(void)
{
	fastrmi_ctx *ctx = NULL;
	char err[ERRMSG] = "";
	unsigned char small[4];
	size_t len;
	int ret;

	CHECK("fastrmi_send_at and fastrmi_recv_at refuse an offset from no array",
	      fastrmi_send_at(NULL, NULL, 8, 4, 0, err, sizeof(err)) == FASTRMI_ERR_INVALID &&
	      fastrmi_recv_at(NULL, NULL, 8, 4, 0, err, sizeof(err)) == FASTRMI_ERR_INVALID &&
	      strstr(err, "fastrmi_recv_at") != NULL, "err \"%s\"", err);
	ret = fastrmi_stream_nudge(NULL, 1000, err, sizeof(err));
	CHECK("fastrmi_stream_nudge refuses a NULL stream with a message",
	      ret == FASTRMI_ERR_INVALID && strstr(err, "fastrmi_stream_nudge: stream is NULL") != NULL,
	      "returned %d, err \"%s\"", ret, err);
	ret = (int)fastrmi_wait_readable_after_nudge(NULL, 0, err, sizeof(err));
	CHECK("fastrmi_wait_readable_after_nudge refuses a NULL stream with a message",
	      ret == FASTRMI_ERR_INVALID && strstr(err, "fastrmi_wait_readable_after_nudge: stream is NULL") != NULL,
	      "returned %d, err \"%s\"", ret, err);
	ret = fastrmi_ctx_set_wait(NULL, FASTRMI_WAIT_BLOCK, 0, err, sizeof(err));
	CHECK("fastrmi_ctx_set_wait refuses a NULL context with a message",
	      ret == FASTRMI_ERR_INVALID && strstr(err, "NULL") != NULL, "returned %d, err \"%s\"", ret, err);

	ret = fastrmi_ctx_open(0, NULL, 0, &ctx, err, sizeof(err));
	CHECK("unknown backend is refused with a message", ret == FASTRMI_ERR_INVALID && err[0] != '\0',
	      "returned %d, err \"%s\"", ret, err);

	ret = fastrmi_ctx_open(FASTRMI_BACKEND_OFI, "nosuchprovider", 0, &ctx, err, sizeof(err));
	CHECK("ofi with an unknown provider fails with libfabric's message",
	      ret == FASTRMI_ERR_PROVIDER && strstr(err, "nosuchprovider") != NULL &&
	      strstr(err, "No data available") != NULL, "returned %d, err \"%s\"", ret, err);

	ret = fastrmi_ctx_open(FASTRMI_BACKEND_OFI, "shm", 0, &ctx, err, sizeof(err));
	if (ret != 0) {
		CHECK("ofi shm context opens", 0, "returned %d: %s", ret, err);
		return;
	}
	len = sizeof(small);
	ret = fastrmi_ctx_address(ctx, small, &len);
	CHECK("ctx_address with a short buffer says how long the address is",
	      ret == FASTRMI_ERR_INVALID && len > sizeof(small) && len <= FASTRMI_ADDRESS_MAX,
	      "returned %d, len %zu", ret, len);
	ret = fastrmi_ctx_set_wait(ctx, 3, 0, err, sizeof(err));
	CHECK("fastrmi_ctx_set_wait refuses an unknown mode with a message",
	      ret == FASTRMI_ERR_INVALID && strstr(err, "unknown mode") != NULL, "returned %d, err \"%s\"", ret, err);
	ret = fastrmi_stream_open(ctx, "garbage", 7, 1, 2, &(fastrmi_stream *){ NULL }, err, sizeof(err));
	CHECK("stream_open refuses a malformed address", ret == FASTRMI_ERR_INVALID && err[0] != '\0',
	      "returned %d, err \"%s\"", ret, err);
	fastrmi_ctx_close(ctx);
}

/* Can one process read another's memory (CMA)? Shared-memory transports use it for
 * large messages; without it they fall back to copying through shared memory. */
static void report_cma(void)
{
	static volatile int target = 42;
	pid_t parent = getpid(), pid;
	int status;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		int value = 0;
		struct iovec local = { &value, sizeof(value) };
		struct iovec remote = { (void *)&target, sizeof(target) };
		ssize_t n = process_vm_readv(parent, &local, 1, &remote, 1, 0);

		_exit(n == (ssize_t)sizeof(value) && value == 42 ? 0 : (errno & 0x7f) | 0x80);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		fprintf(stderr, "# CMA check could not run\n");
		return;
	}
	if (WEXITSTATUS(status) == 0)
		fprintf(stderr, "# CMA (process_vm_readv) between processes: permitted\n");
	else
		fprintf(stderr, "# CMA (process_vm_readv) between processes: NOT permitted (%s): "
			"shm/UCX cma copy large messages through shared memory instead\n",
			strerror(WEXITSTATUS(status) & 0x7f));
}

int main(void)
{
	static const struct config configs[] = {
		{ "ofi shm", FASTRMI_BACKEND_OFI, "shm", NULL, FASTRMI_WAIT_ADAPTIVE },
		{ "ofi tcp;ofi_rxm", FASTRMI_BACKEND_OFI, "tcp;ofi_rxm", NULL, FASTRMI_WAIT_ADAPTIVE },
		{ "ucx shm", FASTRMI_BACKEND_UCX, "shm", NULL, FASTRMI_WAIT_ADAPTIVE },
		{ "ucx tcp", FASTRMI_BACKEND_UCX, "tcp", NULL, FASTRMI_WAIT_ADAPTIVE },
		{ "ucx shm (UCX_TLS=posix,sysv,cma,self)", FASTRMI_BACKEND_UCX, "shm", "posix,sysv,cma,self", FASTRMI_WAIT_ADAPTIVE },
		/* The other ways of waiting, on the two same-host transports. */
		{ "ofi shm, wait = spin", FASTRMI_BACKEND_OFI, "shm", NULL, FASTRMI_WAIT_SPIN },
		{ "ucx shm, wait = block", FASTRMI_BACKEND_UCX, "shm", NULL, FASTRMI_WAIT_BLOCK },
	};
	const char *only = getenv("FASTRMI_TEST_ONLY"); /* e.g. "ofi shm", for debugging */

	signal(SIGPIPE, SIG_IGN);
	report_cma();
	test_errors();
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		if (only == NULL || strcmp(only, configs[i].label) == 0)
			run_config(&configs[i]);
	return check_summary();
}
