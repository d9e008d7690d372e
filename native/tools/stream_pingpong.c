/*
 * stream_pingpong.c - a ping-pong over one FastRMI stream between two processes, in C: what the
 * byte-stream layer costs without Java, and how a waiting thread is woken. Across hosts (or two
 * network namespaces) it shows the wait-object rules of progress.c: IDLE threads per side block on
 * idle streams of the same context beside the ping-pong, as an RMI server's handler threads on idle
 * connections do.
 *
 *   stream_pingpong serve BACKEND PROVIDER [options]        (listens on PORT for the address swap)
 *   stream_pingpong HOST  BACKEND PROVIDER [options]        (the side that times)
 *     BACKEND   ofi | ucx;  PROVIDER e.g. 'tcp;ofi_rxm', tcp, shm
 *     options   --spin USEC (20)  --wait adaptive|spin|block  --iterations N (20000)
 *               --size BYTES (64)  --idle THREADS (0)  --port PORT (7788)
 *
 * Prints the median and 99th percentile round trip of the second half of the iterations, each
 * side's context switches per round trip (the ping-pong's thread, the idle threads), and
 * fastrmi_ctx_wait_counts and fastrmi_ctx_receive_counts. The two sides swap context addresses over one TCP connection.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fastrmi.h"
#include "../tests/thread_switches.h"

#define MAX_IDLE 64

struct options {
	int serve;
	const char *host;
	int backend;
	const char *provider;
	unsigned spin_usec;
	int wait_mode;
	int iterations;
	size_t size;
	int idle;
	int port;
};

struct idle_reader {
	fastrmi_stream *stream;
	pid_t tid;
};

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "stream_pingpong: %s: %s\n", what, detail);
	exit(1);
}

static double now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void *idle_read(void *p)
{
	struct idle_reader *r = p;
	char byte, err[256];

	__atomic_store_n(&r->tid, (pid_t)gettid(), __ATOMIC_RELEASE);
	(void)fastrmi_recv(r->stream, &byte, 1, -1, err, sizeof(err));
	return NULL;
}

static void sock_exact(int fd, void *buf, size_t len, int writing)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = writing ? write(fd, (char *)buf + done, len - done) : read(fd, (char *)buf + done, len - done);

		if (n <= 0)
			die(writing ? "address swap: write" : "address swap: read", n == 0 ? "connection closed" : strerror(errno));
		done += (size_t)n;
	}
}

/* The TCP connection the two sides swap addresses over; *peer gets the other side's IPv4. */
static int swap_connection(const struct options *o, struct in_addr *peer)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)o->port) };
	socklen_t len = sizeof(sa);
	int one = 1, fd;

	if (o->serve) {
		int listener = socket(AF_INET, SOCK_STREAM, 0);

		if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
		    bind(listener, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(listener, 1) != 0)
			die("listen", strerror(errno));
		fd = accept(listener, (struct sockaddr *)&sa, &len);
		if (fd < 0 || close(listener) != 0)
			die("accept", strerror(errno));
	} else {
		if (inet_pton(AF_INET, o->host, &sa.sin_addr) != 1)
			die("not an IPv4 address", o->host);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
			die("connect", strerror(errno));
		len = sizeof(sa);
		if (getpeername(fd, (struct sockaddr *)&sa, &len) != 0)
			die("getpeername", strerror(errno));
	}
	*peer = sa.sin_addr;
	return fd;
}

static void parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .spin_usec = 20, .wait_mode = FASTRMI_WAIT_ADAPTIVE, .iterations = 20000,
			       .size = 64, .port = 7788 };
	if (argc < 4)
		die("usage", "stream_pingpong serve|HOST ofi|ucx PROVIDER [--spin US] [--wait adaptive|spin|block]"
			     " [--iterations N] [--size B] [--idle T] [--port P]");
	o->serve = strcmp(argv[1], "serve") == 0;
	o->host = argv[1];
	o->backend = strcmp(argv[2], "ofi") == 0 ? FASTRMI_BACKEND_OFI
		   : strcmp(argv[2], "ucx") == 0 ? FASTRMI_BACKEND_UCX : 0;
	if (o->backend == 0)
		die("not a backend", argv[2]);
	o->provider = argv[3];
	for (int i = 4; i + 1 < argc; i += 2) {
		const char *v = argv[i + 1];

		if (strcmp(argv[i], "--spin") == 0)
			o->spin_usec = (unsigned)atoi(v);
		else if (strcmp(argv[i], "--wait") == 0)
			o->wait_mode = strcmp(v, "spin") == 0 ? FASTRMI_WAIT_SPIN
				     : strcmp(v, "block") == 0 ? FASTRMI_WAIT_BLOCK : FASTRMI_WAIT_ADAPTIVE;
		else if (strcmp(argv[i], "--iterations") == 0)
			o->iterations = atoi(v);
		else if (strcmp(argv[i], "--size") == 0)
			o->size = (size_t)atol(v);
		else if (strcmp(argv[i], "--idle") == 0)
			o->idle = atoi(v);
		else if (strcmp(argv[i], "--port") == 0)
			o->port = atoi(v);
		else
			die("unknown option", argv[i]);
	}
	if (o->iterations < 2 || o->size == 0 || o->idle < 0 || o->idle > MAX_IDLE)
		die("bad option", "iterations >= 2, size >= 1, idle 0..64");
}

int main(int argc, char **argv)
{
	struct options o;
	struct idle_reader idle[MAX_IDLE];
	pthread_t threads[MAX_IDLE];
	struct fastrmi_wait_counts counts;
	struct fastrmi_receive_counts received;
	struct in_addr peer;
	unsigned char addr[FASTRMI_ADDRESS_MAX + 16], peer_addr[FASTRMI_ADDRESS_MAX + 16];
	size_t addr_len = FASTRMI_ADDRESS_MAX;
	uint32_t n;
	char err[256], *buf;
	fastrmi_ctx *ctx;
	fastrmi_stream *st;
	double *rtt, idle_switches = 0;
	long main_switches;
	int fd;

	parse(argc, argv, &o);
	if (fastrmi_ctx_open(o.backend, o.provider, o.spin_usec, &ctx, err, sizeof(err)) != 0 ||
	    fastrmi_ctx_set_wait(ctx, o.wait_mode, 0, err, sizeof(err)) != 0)
		die("context", err);
	fd = swap_connection(&o, &peer);
	if (fastrmi_ctx_expect_peer(ctx, (const uint8_t *)&peer, 4, err, sizeof(err)) != 0 ||
	    fastrmi_ctx_address(ctx, addr, &addr_len) != 0)
		die("context address", err);
	n = (uint32_t)addr_len;
	sock_exact(fd, &n, sizeof(n), 1);
	sock_exact(fd, addr, addr_len, 1);
	sock_exact(fd, &n, sizeof(n), 0);
	if (n > FASTRMI_ADDRESS_MAX)
		die("address swap", "the peer's address is too long");
	sock_exact(fd, peer_addr, n, 0);
	/* A UCX context reached by socket address: the peer is at the IP we swapped over. */
	if (n == 4 && peer_addr[0] == 'S' && peer_addr[3] == 4) {
		memcpy(peer_addr + n, &peer, 4);
		n += 4;
	}
	if (fastrmi_stream_open(ctx, peer_addr, n, o.serve ? 1 : 2, o.serve ? 2 : 1, &st, err, sizeof(err)) != 0)
		die("stream", err);
	for (int i = 0; i < o.idle; i++) {
		idle[i].tid = 0;
		if (fastrmi_stream_open(ctx, peer_addr, n, o.serve ? 10 + i : 100 + i, o.serve ? 100 + i : 10 + i,
					&idle[i].stream, err, sizeof(err)) != 0)
			die("idle stream", err);
		if (pthread_create(&threads[i], NULL, idle_read, &idle[i]) != 0)
			die("pthread_create", "failed");
	}
	buf = calloc(1, o.size);
	rtt = malloc(sizeof(double) * (size_t)o.iterations);
	if (buf == NULL || rtt == NULL)
		die("malloc", "out of memory");
	usleep(100000); /* the idle threads asleep */
	main_switches = thread_switches((pid_t)gettid());
	for (int i = 0; i < o.idle; i++)
		idle_switches -= thread_switches(__atomic_load_n(&idle[i].tid, __ATOMIC_ACQUIRE));
	for (int i = 0; i < o.iterations; i++) {
		double t0 = now_usec();
		size_t got = 0;

		if (!o.serve && fastrmi_send(st, buf, o.size, -1, err, sizeof(err)) != (int64_t)o.size)
			die("send", err);
		while (got < o.size) {
			int64_t r = fastrmi_recv(st, buf + got, o.size - got, -1, err, sizeof(err));

			if (r <= 0)
				die("recv", r == 0 ? "end of stream" : err);
			got += (size_t)r;
		}
		if (o.serve && fastrmi_send(st, buf, o.size, -1, err, sizeof(err)) != (int64_t)o.size)
			die("send", err);
		rtt[i] = now_usec() - t0;
	}
	main_switches = thread_switches((pid_t)gettid()) - main_switches;
	for (int i = 0; i < o.idle; i++)
		idle_switches += thread_switches(idle[i].tid);
	fastrmi_ctx_wait_counts(ctx, &counts);
	fastrmi_ctx_receive_counts(ctx, &received);
	if (!o.serve) {
		int half = o.iterations / 2, rest = o.iterations - half;

		qsort(rtt + half, (size_t)rest, sizeof(double), by_value);
		printf("%s %s, %zu B, spin %u us, wait %d, %d idle threads: median %.1f us, p99 %.1f us\n", argv[2],
		       o.provider, o.size, o.spin_usec, o.wait_mode, o.idle, rtt[half + rest / 2],
		       rtt[half + rest * 99 / 100]);
	}
	printf("%s: switches per round trip: ping-pong thread %.2f, idle threads %.3f; woken in the provider's"
	       " wait %llu, for others' messages %llu, deputy looks %llu\n", o.serve ? "serve" : "time",
	       (double)main_switches / o.iterations, idle_switches / o.iterations,
	       (unsigned long long)counts.woken_in_provider, (unsigned long long)counts.woken_for_others,
	       (unsigned long long)counts.deputy_looks);
	printf("%s: received %.1f MiB straight into the window, %.1f MiB through the receive buffer\n",
	       o.serve ? "serve" : "time", received.bytes_in_window / 1048576.0,
	       received.bytes_through_buffer / 1048576.0);
	fflush(stdout);
	/* The end: one byte each way over the swap connection, then out (the idle threads still wait). */
	sock_exact(fd, &n, 1, 1);
	sock_exact(fd, &n, 1, 0);
	for (int i = 0; i < o.idle; i++)
		fastrmi_stream_abort(idle[i].stream);
	for (int i = 0; i < o.idle; i++) {
		if (pthread_join(threads[i], NULL) != 0)
			die("pthread_join", "failed");
		fastrmi_stream_close(idle[i].stream);
	}
	fastrmi_stream_close(st);
	fastrmi_ctx_close(ctx);
	if (close(fd) != 0)
		die("close", strerror(errno));
	free(buf);
	free(rtt);
	return 0;
}
