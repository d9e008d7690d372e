/*
 * unit_listen_guard.c - the listener guard (src/listen_guard.c) on plain sockets: a listener is
 * found by its port, and a connection from an IP it does not admit never comes to exist.
 * A unit test of one internal module, so it is built from that source, not from the library.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "../src/listen_guard.h"

/* A SYN the filter drops is sent again only after a second; a connection let in is there at once. */
#define SETTLE_MS 300

static const unsigned char loopback4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1 };
static const unsigned char other4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 9, 8, 7 };
static const unsigned char loopback6[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const unsigned char other6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

/* A listener on the loopback address of family, port chosen by the kernel; -1 if it cannot be made. */
static int listen_on_loopback(int family, struct sockaddr_storage *sa, socklen_t *len)
{
	int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK, 0);

	memset(sa, 0, sizeof(*sa));
	if (family == AF_INET) {
		((struct sockaddr_in *)sa)->sin_family = AF_INET;
		((struct sockaddr_in *)sa)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*len = sizeof(struct sockaddr_in);
	} else {
		((struct sockaddr_in6 *)sa)->sin6_family = AF_INET6;
		((struct sockaddr_in6 *)sa)->sin6_addr = in6addr_loopback;
		*len = sizeof(struct sockaddr_in6);
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, *len) != 0 || listen(fd, 16) != 0 ||
	    getsockname(fd, (struct sockaddr *)sa, len) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static uint16_t port_of(const struct sockaddr_storage *sa)
{
	return sa->ss_family == AF_INET ? ((const struct sockaddr_in *)sa)->sin_port
					: ((const struct sockaddr_in6 *)sa)->sin6_port;
}

/*
 * Connects to the listener and reports whether a connection came to exist: the connecting side
 * done and the listener with one to accept. Both sockets are closed.
 */
static int connection_is_let_in(int listener, const struct sockaddr_storage *sa, socklen_t len)
{
	int fd = socket(sa->ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int accepted, soerr = -1, let_in;
	socklen_t optlen = sizeof(soerr);

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)sa, len) != 0 && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	let_in = poll(&pfd, 1, SETTLE_MS) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &optlen) == 0 &&
		 soerr == 0;
	accepted = accept(listener, NULL, NULL);
	if (accepted >= 0)
		close(accepted);
	close(fd);
	return let_in && accepted >= 0;
}

static void test_family(int family, const char *name, const unsigned char *self, const unsigned char *other)
{
	struct sockaddr_storage sa;
	socklen_t len;
	unsigned char admit[2][16];
	char err[256] = "";
	char what[128];
	int listener = listen_on_loopback(family, &sa, &len), found = -1;

	if (listener < 0) {
		snprintf(what, sizeof(what), "%s: no loopback listener on this host, skipped", name);
		CHECK(what, 1, "%s", "skipped");
		return;
	}
	snprintf(what, sizeof(what), "%s: the listener is found by its port", name);
	CHECK(what, fr_listen_guard_find(port_of(&sa), &found, err, sizeof(err)) == 0 && found == listener,
	      "found %d, not %d: %s", found, listener, err);

	snprintf(what, sizeof(what), "%s: without a guard a connection is let in", name);
	CHECK(what, connection_is_let_in(listener, &sa, len) == 1, "it was not");

	snprintf(what, sizeof(what), "%s: a guard that admits nobody lets no connection in", name);
	CHECK(what, fr_listen_guard_admit(listener, NULL, 0, err, sizeof(err)) == 0 &&
			    connection_is_let_in(listener, &sa, len) == 0,
	      "%s", err[0] != '\0' ? err : "one came in");

	memcpy(admit[0], other, 16);
	snprintf(what, sizeof(what), "%s: a guard that admits another IP lets no connection in", name);
	CHECK(what, fr_listen_guard_admit(listener, (const unsigned char (*)[16])admit, 1, err, sizeof(err)) == 0 &&
			    connection_is_let_in(listener, &sa, len) == 0,
	      "%s", err[0] != '\0' ? err : "one came in");

	memcpy(admit[1], self, 16);
	snprintf(what, sizeof(what), "%s: a guard that admits this IP lets its connection in", name);
	CHECK(what, fr_listen_guard_admit(listener, (const unsigned char (*)[16])admit, 2, err, sizeof(err)) == 0 &&
			    connection_is_let_in(listener, &sa, len) == 1,
	      "%s", err[0] != '\0' ? err : "it was not");
	close(listener);
}

/* The most IPs, of both families, still make a program the kernel takes; one more is refused. */
static void test_limits(void)
{
	static unsigned char many[FR_LISTEN_GUARD_IPS_MAX + 1][16];
	struct sockaddr_storage sa;
	socklen_t len;
	char err[256] = "";
	int listener = listen_on_loopback(AF_INET, &sa, &len);

	for (unsigned i = 0; i <= FR_LISTEN_GUARD_IPS_MAX; i++) {
		memcpy(many[i], i % 2 ? other6 : other4, 16);
		many[i][15] = (unsigned char)i;
	}
	memcpy(many[FR_LISTEN_GUARD_IPS_MAX - 1], loopback4, 16);
	CHECK("the most IPs make a program the kernel takes, and the last one is let in",
	      listener >= 0 &&
		      fr_listen_guard_admit(listener, (const unsigned char (*)[16])many, FR_LISTEN_GUARD_IPS_MAX, err,
					    sizeof(err)) == 0 &&
		      connection_is_let_in(listener, &sa, len) == 1,
	      "%s", err[0] != '\0' ? err : "it was not");
	err[0] = '\0';
	CHECK("one IP more is refused, and says so",
	      listener >= 0 &&
		      fr_listen_guard_admit(listener, (const unsigned char (*)[16])many, FR_LISTEN_GUARD_IPS_MAX + 1,
					    err, sizeof(err)) == -1 &&
		      strstr(err, "at most") != NULL,
	      "err \"%s\"", err);
	CHECK("a port no socket of this process listens on is not found, and says so",
	      fr_listen_guard_find(htons(1), &(int){ 0 }, err, sizeof(err)) == -1 && strstr(err, "port 1") != NULL,
	      "err \"%s\"", err);
	if (listener >= 0)
		close(listener);
}

int main(void)
{
	test_family(AF_INET, "IPv4", loopback4, other4);
	test_family(AF_INET6, "IPv6", loopback6, other6);
	test_limits();
	return check_summary();
}
