/*
 * test_peer.c - what a peer cannot make this library do: who the peer is comes from the
 * kernel (fastrmi_tcp_peer, also for a peer of another user), forged context addresses
 * are refused before libfabric or UCX sees them and open no file the peer names, and a UCX
 * listener takes connection requests only from peers it was told to expect.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fastrmi.h"

#define ERRMSG 256
#define OTHER_UID 65534 /* nobody */

static const uint8_t loopback[4] = { 127, 0, 0, 1 };

/* A listening socket on 127.0.0.1 and its port; -1 on failure. */
static int listen_loopback(uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memcpy(&a.sin_addr, loopback, 4);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 4) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0)
		return -1;
	*port = ntohs(a.sin_port);
	return fd;
}

static int connect_loopback(uint16_t port, uint16_t *local_port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memcpy(&a.sin_addr, loopback, 4);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0)
		return -1;
	*local_port = ntohs(a.sin_port);
	return fd;
}

/* Which process holds a socket: this one holds the client's end; its parent does not. */
static void test_socket_holder(int client)
{
	struct stat st;
	char err[ERRMSG] = "";
	int ret;

	if (fstat(client, &st) != 0) {
		CHECK("fstat(client socket)", 0, "%s", strerror(errno));
		return;
	}
	ret = fastrmi_process_holds_socket(getpid(), st.st_ino, err, sizeof(err));
	CHECK("this process holds the client's socket", ret == 1, "returned %d: %s", ret, err);
	ret = fastrmi_process_holds_socket(getppid(), st.st_ino, err, sizeof(err));
	CHECK("its parent does not", ret == 0, "returned %d: %s", ret, err);
	ret = fastrmi_process_holds_socket(getpid(), st.st_ino + 1000000, err, sizeof(err));
	CHECK("nor does it hold a socket of another inode", ret == 0, "returned %d: %s", ret, err);
	for (int64_t pid = -1; pid <= 0; pid++) {
		ret = fastrmi_process_holds_socket(pid, st.st_ino, err, sizeof(err));
		CHECK("no process is NOT_FOUND, with a message", ret == FASTRMI_ERR_NOT_FOUND && err[0] != '\0',
		      "pid %lld returned %d: %s", (long long)pid, ret, err);
	}
	ret = fastrmi_process_holds_socket(INT64_MAX, st.st_ino, err, sizeof(err));
	CHECK("a pid past any process's is NOT_FOUND", ret == FASTRMI_ERR_NOT_FOUND, "returned %d: %s", ret, err);
}

static void test_peer_uid(void)
{
	uint16_t server_port, client_port;
	uint32_t uid = 12345;
	uint64_t inode = 0;
	struct stat st;
	char err[ERRMSG] = "";
	int listener, client, accepted, ret, pipefd[2], status;
	pid_t pid;

	listener = listen_loopback(&server_port);
	client = listener < 0 ? -1 : connect_loopback(server_port, &client_port);
	accepted = client < 0 ? -1 : accept(listener, NULL, NULL);
	if (accepted < 0) {
		CHECK("a loopback connection for the uid lookups", 0, "%s", strerror(errno));
		return;
	}
	ret = fastrmi_tcp_peer(loopback, 4, client_port, loopback, 4, server_port, &uid, &inode, err, sizeof(err));
	CHECK("the server learns the client's uid from the kernel", ret == 0 && uid == fastrmi_process_uid(),
	      "returned %d, uid %u (own %u): %s", ret, uid, fastrmi_process_uid(), err);
	CHECK("and the inode of the client's socket", ret == 0 && fstat(client, &st) == 0 && inode == st.st_ino,
	      "inode %llu, the client socket's %llu", (unsigned long long)inode, (unsigned long long)st.st_ino);
	ret = fastrmi_tcp_peer(loopback, 4, server_port, loopback, 4, client_port, &uid, &inode, err, sizeof(err));
	CHECK("the client learns the server's uid from the kernel", ret == 0 && uid == fastrmi_process_uid(),
	      "returned %d, uid %u: %s", ret, uid, err);
	/* The listener's port with a wrong peer port: the kernel could answer with the listener. */
	ret = fastrmi_tcp_peer(loopback, 4, server_port, loopback, 4, (uint16_t)(client_port + 1), &uid, &inode, err,
				   sizeof(err));
	CHECK("no such connection is NOT_FOUND, never a listener's uid", ret == FASTRMI_ERR_NOT_FOUND && err[0] != '\0',
	      "returned %d: %s", ret, err);
	ret = fastrmi_tcp_peer(loopback, 4, 1, loopback, 16, 2, &uid, &inode, err, sizeof(err));
	CHECK("addresses of two lengths are refused", ret == FASTRMI_ERR_INVALID, "returned %d", ret);
	test_socket_holder(client);
	close(accepted);
	close(client);

	/* A client of another user: the kernel says so, whatever the client would claim. */
	if (geteuid() != 0) {
		printf("# not root: the other-user lookup is not run\n");
		close(listener);
		return;
	}
	if (pipe(pipefd) != 0) {
		CHECK("pipe for the other-user client", 0, "%s", strerror(errno));
		close(listener);
		return;
	}
	pid = fork();
	if (pid == 0) {
		uint16_t port = 0;
		char c;
		int fd;

		close(pipefd[0]);
		if (setgid(OTHER_UID) != 0 || setuid(OTHER_UID) != 0)
			_exit(2);
		fd = connect_loopback(server_port, &port);
		if (fd < 0 || write(pipefd[1], &port, sizeof(port)) != (ssize_t)sizeof(port))
			_exit(3);
		(void)!read(fd, &c, 1); /* until the parent closes */
		_exit(0);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &client_port, sizeof(client_port)) != (ssize_t)sizeof(client_port)) {
		CHECK("an other-user client connects", 0, "fork or child failed");
	} else {
		accepted = accept(listener, NULL, NULL);
		ret = fastrmi_tcp_peer(loopback, 4, client_port, loopback, 4, server_port, &uid, &inode, err, sizeof(err));
		CHECK("a client of another user is seen as that user", ret == 0 && uid == OTHER_UID,
		      "returned %d, uid %u: %s", ret, uid, err);
		close(accepted);
	}
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	close(listener);
}

/* The inode of our pid namespace, as the library names files with it. */
static unsigned long long pid_namespace(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* Counts this process's entries (KIND-nsNS-PID-... and KINDpipe-nsNS-PID-...) of a directory (-1 when it cannot be
 * read): other processes of the user (tests of other builds run beside) may have theirs there. */
static int count_entries(const char *path)
{
	char cmd[300];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' 2>/dev/null | grep -c -E '^[a-z]+-ns[0-9]+-%d-'", path, (int)getpid());
	p = popen(cmd, "r");
	if (p != NULL) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

static int open_refused(fastrmi_ctx *ctx, const void *addr, size_t len, char *err)
{
	fastrmi_stream *st = NULL;
	int ret = fastrmi_stream_open(ctx, addr, len, 1, 2, &st, err, ERRMSG);

	if (ret == 0)
		fastrmi_stream_close(st);
	return ret == FASTRMI_ERR_INVALID;
}

static void test_forged_ofi_addresses(void)
{
	unsigned char addr[FASTRMI_ADDRESS_MAX], forged[FASTRMI_ADDRESS_MAX];
	size_t len = sizeof(addr);
	fastrmi_ctx *ctx = NULL;
	char err[ERRMSG] = "", dir[64];
	uint32_t pid, fd_number = 3;
	uint16_t name_len;
	int ret;

	ret = fastrmi_ctx_open(FASTRMI_BACKEND_OFI, "shm", 0, &ctx, err, sizeof(err));
	if (ret != 0 || fastrmi_ctx_address(ctx, addr, &len) != 0) {
		CHECK("ofi shm context opens", 0, "returned %d: %s", ret, err);
		fastrmi_ctx_close(ctx);
		return;
	}
	snprintf(dir, sizeof(dir), "/dev/shm/fastrmi-%u", fastrmi_process_uid());
	{
		struct stat st;

		CHECK("the doorbell directory is the user's own, mode 0700",
		      stat(dir, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 0777) == 0700,
		      "%s: %s", dir, strerror(errno));
	}
	/* The old form named the doorbell /proc/PID/fd/FD: a doorbell number that is an open fd
	 * of ours (3) must not open anything. */
	memcpy(forged, addr, len);
	memcpy(forged + 6, &fd_number, 4);
	CHECK("a doorbell that does not exist in the user's directory is not opened",
	      fastrmi_stream_open(ctx, forged, len, 1, 2, &(fastrmi_stream *){ NULL }, err, sizeof(err)) ==
			      FASTRMI_ERR_PROVIDER && strstr(err, "bell-") != NULL,
	      "err \"%s\"", err);
	pid = 1;
	memcpy(forged, addr, len);
	memcpy(forged + 2, &pid, 4);
	CHECK("an endpoint name of another pid than its header's is refused", open_refused(ctx, forged, len, err),
	      "err \"%s\"", err);
	memcpy(&name_len, addr + 10, 2);
	memcpy(forged, addr, 12);
	name_len = (uint16_t)(strlen("/etc/passwd") + 1);
	memcpy(forged + 10, &name_len, 2);
	memcpy(forged + 12, "/etc/passwd", name_len);
	CHECK("an endpoint name that is a path is refused", open_refused(ctx, forged, 12 + name_len, err),
	      "err \"%s\"", err);
	CHECK("a truncated address is refused", open_refused(ctx, addr, len - 1, err), "err \"%s\"", err);
	forged[0] = 'U';
	CHECK("an address of another backend is refused", open_refused(ctx, forged, len, err), "err \"%s\"", err);
	fastrmi_ctx_close(ctx);
	CHECK("closing the last context leaves no doorbell", count_entries(dir) == 0, "%d entries of ours in %s",
	      count_entries(dir), dir);
}

/* ucx shm: the context's address names a file of the user's folder; forged names are refused. */
static void test_ucx_shm_address_file(void)
{
	unsigned char addr[FASTRMI_ADDRESS_MAX], forged[16];
	size_t len = sizeof(addr);
	fastrmi_ctx *ctx = NULL;
	char err[ERRMSG] = "", path[96];
	uint32_t pid, number;
	struct stat st;
	int ret;

	ret = fastrmi_ctx_open(FASTRMI_BACKEND_UCX, "shm", 0, &ctx, err, sizeof(err));
	if (ret != 0 || fastrmi_ctx_address(ctx, addr, &len) != 0 || len != 9 || addr[0] != 'U') {
		CHECK("ucx shm context opens with a 9-byte file reference", 0, "returned %d, %zu bytes: %s", ret, len, err);
		fastrmi_ctx_close(ctx);
		return;
	}
	memcpy(&pid, addr + 1, 4);
	memcpy(&number, addr + 5, 4);
	snprintf(path, sizeof(path), "/dev/shm/fastrmi-%u/ucx-ns%llu-%u-%u", (unsigned)geteuid(), pid_namespace(), pid,
		 number);
	CHECK("ucx shm: the worker address is a 0600 file of this process in the user's folder",
	      pid == (uint32_t)getpid() && stat(path, &st) == 0 && (st.st_mode & 0777) == 0600 && st.st_size > 0,
	      "%s (pid %u)", path, pid);
	memcpy(forged, addr, 9);
	number += 1000;
	memcpy(forged + 5, &number, 4);
	CHECK("ucx shm: a reference to no file is refused", open_refused(ctx, forged, 9, err), "err \"%s\"", err);
	memset(forged + 1, 0, 8);
	CHECK("ucx shm: pid 0 is refused", open_refused(ctx, forged, 9, err), "err \"%s\"", err);
	CHECK("ucx shm: a longer address is refused", open_refused(ctx, addr, 10, err), "err \"%s\"", err);
	memcpy(forged, "U\x7f\x45\x4c\x46\x02\x01\x01\x00\x00", 10);
	CHECK("ucx shm: a raw worker-address-like blob is refused", open_refused(ctx, forged, 10, err),
	      "err \"%s\"", err);
	fastrmi_ctx_close(ctx);
	CHECK("ucx shm: closing the context removes its file", stat(path, &st) != 0 && errno == ENOENT, "%s", path);
}

static void test_forged_sockaddrs(void)
{
	unsigned char addr[FASTRMI_ADDRESS_MAX], forged[64];
	size_t len = sizeof(addr);
	fastrmi_ctx *ctx = NULL;
	char err[ERRMSG] = "";
	int ret;

	ret = fastrmi_ctx_open(FASTRMI_BACKEND_OFI, "tcp;ofi_rxm", 0, &ctx, err, sizeof(err));
	if (ret != 0 || fastrmi_ctx_address(ctx, addr, &len) != 0 || len != 12 + 16) {
		CHECK("ofi tcp;ofi_rxm context opens with a sockaddr_in address", 0, "returned %d, %zu bytes: %s", ret,
		      len, err);
		fastrmi_ctx_close(ctx);
		return;
	}
	memcpy(forged, addr, len);
	memset(forged + 12 + 2, 0, 2);
	CHECK("ofi: a sockaddr without a port is refused", open_refused(ctx, forged, len, err), "err \"%s\"", err);
	memcpy(forged, addr, len);
	forged[12] = 0x77;
	CHECK("ofi: a sockaddr of another family is refused", open_refused(ctx, forged, len, err), "err \"%s\"", err);
	fastrmi_ctx_close(ctx);

	ctx = NULL;
	len = sizeof(addr);
	ret = fastrmi_ctx_open(FASTRMI_BACKEND_UCX, "tcp", 0, &ctx, err, sizeof(err));
	if (ret != 0 || fastrmi_ctx_address(ctx, addr, &len) != 0 || len != 4 || addr[0] != 'S') {
		CHECK("ucx tcp context opens with a listener's port", 0, "returned %d, %zu bytes: %s", ret, len, err);
		fastrmi_ctx_close(ctx);
		return;
	}
	memcpy(forged, "U\x01\x02\x03\x04\x05\x06\x07\x08", 9);
	CHECK("ucx tcp: a worker address is refused", open_refused(ctx, forged, 9, err), "err \"%s\"", err);
	memcpy(forged, addr, len);
	CHECK("ucx tcp: a port without an IP is refused", open_refused(ctx, forged, len, err), "err \"%s\"", err);
	memcpy(forged + len, loopback, 4);
	forged[3] = 6;
	CHECK("ucx tcp: an IPv4 address said to be IPv6 is refused", open_refused(ctx, forged, len + 4, err),
	      "err \"%s\"", err);
	fastrmi_ctx_close(ctx);
}

struct server_side {
	fastrmi_ctx *ctx;
	unsigned char peer[8];
	int64_t got;
};

/* The server's side: a stream to the client's listener, then a read, so that its context
 * progresses (and so takes or rejects the client's connection request). */
static void *server_reads(void *arg)
{
	struct server_side *server = arg;
	fastrmi_stream *st = NULL;
	char err[ERRMSG], c;

	if (fastrmi_stream_open(server->ctx, server->peer, sizeof(server->peer), 2, 1, &st, err, sizeof(err)) == 0)
		server->got = fastrmi_recv(st, &c, 1, 3000, err, sizeof(err));
	fastrmi_stream_close(st);
	return NULL;
}

/* Whether a plain TCP connection from 127.0.0.1 to port (network order) comes to exist in 300 ms:
 * a SYN the kernel drops is sent again only after a second. */
static int plain_connection_is_let_in(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = port };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int soerr = -1, let_in;
	socklen_t len = sizeof(soerr);

	memcpy(&a.sin_addr, loopback, 4);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 && errno != EINPROGRESS) {
		close(fd);
		return 0;
	}
	let_in = poll(&pfd, 1, 300) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && soerr == 0;
	close(fd);
	return let_in;
}

/*
 * A UCX listener lets no connection in from a peer it was not told to expect: UCX would read
 * what it sends (64 zero bytes abort UCX 1.13) before a handler could reject it.
 */
static void test_unexpected_peer(void)
{
	struct server_side server = { .got = 1 };
	unsigned char server_addr[8], client_addr[8];
	size_t server_len = sizeof(server_addr), client_len = sizeof(client_addr);
	fastrmi_ctx *client = NULL;
	fastrmi_stream *st = NULL;
	char err[ERRMSG] = "", c = 'x';
	int64_t sent = 0;
	uint16_t server_port;
	pthread_t thread;
	int ret;

	ret = fastrmi_ctx_open(FASTRMI_BACKEND_UCX, "tcp", 0, &server.ctx, err, sizeof(err));
	if (ret == 0)
		ret = fastrmi_ctx_open(FASTRMI_BACKEND_UCX, "tcp", 0, &client, err, sizeof(err));
	if (ret != 0 || fastrmi_ctx_address(server.ctx, server_addr, &server_len) != 0 || server_len != 4 ||
	    fastrmi_ctx_address(client, client_addr, &client_len) != 0 || client_len != 4) {
		CHECK("two ucx tcp contexts open", 0, "returned %d: %s", ret, err);
		goto out;
	}
	/* The client lets the server in; the server expects no one. */
	(void)fastrmi_ctx_expect_peer(client, loopback, 4, err, sizeof(err));
	memcpy(&server_port, server_addr + 1, 2);
	CHECK("a listener that expects nobody lets no connection in", plain_connection_is_let_in(server_port) == 0,
	      "a plain connection from 127.0.0.1 came in");
	memcpy(server.peer, client_addr, 4);
	memcpy(server.peer + 4, loopback, 4);
	memcpy(server_addr + 4, loopback, 4);
	if (pthread_create(&thread, NULL, server_reads, &server) != 0) {
		CHECK("server thread starts", 0, "%s", strerror(errno));
		goto out;
	}
	ret = fastrmi_stream_open(client, server_addr, sizeof(server_addr), 1, 2, &st, err, sizeof(err));
	if (ret == 0)
		sent = fastrmi_send(st, &c, 1, 3000, err, sizeof(err));
	pthread_join(thread, NULL);
	CHECK("a stream from a peer nobody expects delivers nothing: the server reads nothing in 3 s",
	      server.got <= 0, "the server read %lld (the client's open %d, send %lld)", (long long)server.got, ret,
	      (long long)sent);
out:
	fastrmi_stream_close(st);
	fastrmi_ctx_close(client);
	fastrmi_ctx_close(server.ctx);
}

static void own_handler(int signum)
{
	(void)signum;
}

/* The process's handlers of the signals libfabric's shm wants are still its own after an ofi shm
 * context opened (a JVM's SIGSEGV handler must stay the JVM's). Runs before any other ofi use. */
static void test_signal_handlers_kept(void)
{
	static const int signals[] = { SIGINT, SIGBUS, SIGSEGV, SIGTERM };
	struct sigaction own = { .sa_handler = own_handler }, now;
	fastrmi_ctx *ctx = NULL;
	char err[ERRMSG] = "";
	int kept = 1, ret;

	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		sigaction(signals[i], &own, NULL);
	ret = fastrmi_ctx_open(FASTRMI_BACKEND_OFI, "shm", 0, &ctx, err, sizeof(err));
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		sigaction(signals[i], NULL, &now);
		kept = kept && now.sa_handler == own_handler;
		signal(signals[i], SIG_DFL);
	}
	CHECK("an ofi shm context leaves the process's SIGINT, SIGBUS, SIGSEGV and SIGTERM handlers as they were",
	      ret == 0 && kept, "open returned %d (%s), handlers kept: %d", ret, err, kept);
	fastrmi_ctx_close(ctx);
}

/*
 * Another user made this user's folder first (/dev/shm is open to all): shared memory is off for
 * this user, and the error says why and what removes it. Run as root: the "user" is a child with an
 * unused uid, whose folder root made first.
 */
static void test_squatted_folder(void)
{
	const uid_t victim = 54321;
	char dir[64], msg[ERRMSG] = "";
	int pipefd[2], status = 0;
	ssize_t got;
	pid_t pid;

	if (geteuid() != 0) {
		printf("skip: the squatted folder needs root (a child of another uid)\n");
		return;
	}
	snprintf(dir, sizeof(dir), "/dev/shm/fastrmi-%u", (unsigned)victim);
	(void)rmdir(dir);
	if (mkdir(dir, 0700) != 0 || pipe(pipefd) != 0) {
		CHECK("a folder in the victim's name can be made", 0, "%s: %s", dir, strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		fastrmi_ctx *ctx = NULL;
		char err[ERRMSG] = "";

		close(pipefd[0]);
		if (setresgid(victim, victim, victim) != 0 || setresuid(victim, victim, victim) != 0)
			snprintf(err, sizeof(err), "setresuid: %s", strerror(errno));
		else if (fastrmi_ctx_open(FASTRMI_BACKEND_UCX, "shm", 0, &ctx, err, sizeof(err)) == 0)
			snprintf(err, sizeof(err), "opened");
		if (write(pipefd[1], err, strlen(err) + 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(pipefd[1]);
	got = read(pipefd[0], msg, sizeof(msg) - 1);
	msg[got > 0 ? got : 0] = '\0';
	close(pipefd[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	CHECK("a folder another user made first: no shared memory, and the error says whose it is and what removes it",
	      strstr(msg, "belongs to uid 0") != NULL && strstr(msg, "another user made it first") != NULL &&
		      strstr(msg, "rm -r /dev/shm/fastrmi-54321") != NULL,
	      "\"%s\"", msg);
	if (rmdir(dir) != 0)
		fprintf(stderr, "# cannot remove %s: %s\n", dir, strerror(errno));
}

int main(void)
{
	test_signal_handlers_kept();
	test_peer_uid();
	test_forged_ofi_addresses();
	test_forged_sockaddrs();
	test_ucx_shm_address_file();
	test_unexpected_peer();
	test_squatted_folder();
	return check_summary();
}
