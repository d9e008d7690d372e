/*
 * test_nudge.c - a wait on a socket that another thread can end early (fastrmi_nudge_*): data,
 * a nudge, both, neither, the peer's end, a nudge from another thread while the wait sleeps, and
 * descriptors that are not open; and a look at a socket that never waits (fastrmi_socket_readable).
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fastrmi.h"

#define ERRMSG 256
#define FOREVER (-1)

struct nudger {
	int nudge;
	int rc;
};

static void *nudge_later(void *arg)
{
	struct nudger *n = arg;
	char err[ERRMSG];
	struct timespec pause = {.tv_nsec = 20 * 1000 * 1000};

	nanosleep(&pause, NULL);
	n->rc = fastrmi_nudge(n->nudge, err, sizeof(err));
	return NULL;
}

int main(void)
{
	char err[ERRMSG];
	int pair[2];
	int nudge;
	int rc;
	pthread_t thread;
	struct nudger later;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
		CHECK("socketpair", 0, "cannot make one");
		return check_summary();
	}
	nudge = fastrmi_nudge_open(err, sizeof(err));
	CHECK("a nudge opens", nudge >= 0, "got %d: %s", nudge, err);

	rc = fastrmi_nudge_wait(pair[0], nudge, 10, err, sizeof(err));
	CHECK("neither data nor a nudge: nothing once the time passed", rc == FASTRMI_NUDGE_NOTHING, "got %d: %s", rc, err);

	rc = fastrmi_nudge(nudge, err, sizeof(err));
	CHECK("a nudge before the wait is kept", rc == 0, "got %d: %s", rc, err);
	rc = fastrmi_nudge(nudge, err, sizeof(err));
	CHECK("a second one too", rc == 0, "got %d: %s", rc, err);
	rc = fastrmi_nudge_wait(pair[0], nudge, FOREVER, err, sizeof(err));
	CHECK("and ends the wait at once", rc == FASTRMI_NUDGE_NUDGED, "got %d: %s", rc, err);
	rc = fastrmi_nudge_wait(pair[0], nudge, 10, err, sizeof(err));
	CHECK("a nudge is spent by the wait it ends, however many came", rc == FASTRMI_NUDGE_NOTHING, "got %d: %s", rc,
	      err);

	rc = fastrmi_socket_readable(pair[0], err, sizeof(err));
	CHECK("a look at an idle socket finds nothing", rc == 0, "got %d: %s", rc, err);
	CHECK("data written", write(pair[1], "x", 1) == 1, "write failed");
	rc = fastrmi_socket_readable(pair[0], err, sizeof(err));
	CHECK("a look finds the data", rc == 1, "got %d: %s", rc, err);
	rc = fastrmi_nudge(nudge, err, sizeof(err));
	rc = fastrmi_nudge_wait(pair[0], nudge, FOREVER, err, sizeof(err));
	CHECK("data and a nudge: readable", rc == FASTRMI_NUDGE_READABLE, "got %d: %s", rc, err);
	rc = fastrmi_nudge_wait(pair[0], nudge, FOREVER, err, sizeof(err));
	CHECK("the data stays until read, the nudge is spent", rc == FASTRMI_NUDGE_READABLE, "got %d: %s", rc, err);
	{
		char byte;
		CHECK("the data reads", read(pair[0], &byte, 1) == 1 && byte == 'x', "read failed");
	}
	rc = fastrmi_nudge_wait(pair[0], nudge, 10, err, sizeof(err));
	CHECK("after the read: nothing", rc == FASTRMI_NUDGE_NOTHING, "got %d: %s", rc, err);

	later.nudge = nudge;
	later.rc = -100;
	if (pthread_create(&thread, NULL, nudge_later, &later) != 0) {
		CHECK("pthread_create", 0, "failed");
	} else {
		rc = fastrmi_nudge_wait(pair[0], nudge, FOREVER, err, sizeof(err));
		pthread_join(thread, NULL);
		CHECK("another thread's nudge wakes a sleeping wait", rc == FASTRMI_NUDGE_NUDGED && later.rc == 0,
		      "got %d (%s), the nudger %d", rc, err, later.rc);
	}

	rc = fastrmi_nudge_wait(-1, nudge, 10, err, sizeof(err));
	CHECK("a negative fd is refused by name", rc == FASTRMI_ERR_INVALID && strstr(err, "fd -1") != NULL,
	      "got %d: %s", rc, err);
	rc = fastrmi_nudge_wait(pair[0], 9999, 10, err, sizeof(err));
	CHECK("a nudge that is not open is refused by name", rc == FASTRMI_ERR_INVALID && strstr(err, "nudge 9999") != NULL,
	      "got %d: %s", rc, err);

	rc = fastrmi_socket_readable(-1, err, sizeof(err));
	CHECK("a look at a negative fd is refused by name", rc == FASTRMI_ERR_INVALID && strstr(err, "fd -1") != NULL,
	      "got %d: %s", rc, err);
	rc = fastrmi_socket_readable(9999, err, sizeof(err));
	CHECK("a look at an fd that is not open is refused by name",
	      rc == FASTRMI_ERR_INVALID && strstr(err, "fd 9999") != NULL, "got %d: %s", rc, err);

	CHECK("the peer closes", close(pair[1]) == 0, "close failed");
	rc = fastrmi_socket_readable(pair[0], err, sizeof(err));
	CHECK("a look finds the peer's end", rc == 1, "got %d: %s", rc, err);
	rc = fastrmi_nudge_wait(pair[0], nudge, FOREVER, err, sizeof(err));
	CHECK("the peer's end is readable (the read says end of stream)", rc == FASTRMI_NUDGE_READABLE, "got %d: %s", rc,
	      err);

	rc = fastrmi_nudge_close(nudge, err, sizeof(err));
	CHECK("the nudge closes", rc == 0, "got %d: %s", rc, err);
	rc = fastrmi_nudge(nudge, err, sizeof(err));
	CHECK("a closed nudge is refused", rc == FASTRMI_ERR_INVALID, "got %d: %s", rc, err);
	rc = fastrmi_nudge_close(nudge, err, sizeof(err));
	CHECK("closing it twice is refused", rc == FASTRMI_ERR_INVALID && strstr(err, "close(nudge") != NULL, "got %d: %s",
	      rc, err);
	close(pair[0]);
	return check_summary();
}
