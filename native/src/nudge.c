/*
 * nudge.c - a wait on a socket FastRMI does not own (a JVM's TCP connection) that another thread
 * can end early. The waiter polls the socket and an eventfd; the nudger writes the eventfd. The
 * counter stays set until the waiter drains it, so a nudge sent before the wait starts ends it at
 * once and none is lost.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"

/* The status for a failed call's errno (read before the message is written: that may change it). */
static int fr_nudge_status(int errnum)
{
	if (errnum == EBADF)
		return FASTRMI_ERR_INVALID;
	return errnum == ENOMEM ? FASTRMI_ERR_NOMEM : FASTRMI_ERR_PROVIDER;
}

FASTRMI_API int fastrmi_nudge_open(char *err, size_t errlen)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	if (fd < 0) {
		int errnum = errno;

		fr_seterr(err, errlen, "eventfd(nudge): %s", strerror(errnum));
		return fr_nudge_status(errnum);
	}
	fr_clearerr(err, errlen);
	return fd;
}

FASTRMI_API int fastrmi_nudge(int nudge, char *err, size_t errlen)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is full, so the nudge is pending anyway. */
	if (write(nudge, &one, sizeof(one)) != (ssize_t)sizeof(one) && errno != EAGAIN) {
		int errnum = errno;

		fr_seterr(err, errlen, "write(nudge %d): %s", nudge, strerror(errnum));
		return fr_nudge_status(errnum);
	}
	fr_clearerr(err, errlen);
	return 0;
}

FASTRMI_API int fastrmi_nudge_close(int nudge, char *err, size_t errlen)
{
	if (close(nudge) != 0) {
		int errnum = errno;

		fr_seterr(err, errlen, "close(nudge %d): %s", nudge, strerror(errnum));
		return fr_nudge_status(errnum);
	}
	fr_clearerr(err, errlen);
	return 0;
}

/* Spends a pending nudge; 0, or a negative code. */
static int fr_nudge_drain(int nudge, char *err, size_t errlen)
{
	uint64_t count;

	if (read(nudge, &count, sizeof(count)) != (ssize_t)sizeof(count) && errno != EAGAIN) {
		int errnum = errno;

		fr_seterr(err, errlen, "read(nudge %d): %s", nudge, strerror(errnum));
		return fr_nudge_status(errnum);
	}
	return 0;
}

FASTRMI_API int fastrmi_nudge_wait(int fd, int nudge, int timeout_ms, char *err, size_t errlen)
{
	struct pollfd fds[2] = {{.fd = fd, .events = POLLIN}, {.fd = nudge, .events = POLLIN}};
	int ready;
	int rc;

	if (fd < 0 || nudge < 0) {
		fr_seterr(err, errlen, "nudge wait on fd %d, nudge %d: not a descriptor", fd, nudge);
		return FASTRMI_ERR_INVALID;
	}
	ready = poll(fds, 2, timeout_ms);
	if (ready < 0) {
		int errnum = errno;

		if (errnum == EINTR) {
			fr_clearerr(err, errlen);
			return FASTRMI_NUDGE_NOTHING;
		}
		fr_seterr(err, errlen, "poll(fd %d, nudge %d): %s", fd, nudge, strerror(errnum));
		return fr_nudge_status(errnum);
	}
	if ((fds[0].revents | fds[1].revents) & POLLNVAL) {
		fr_seterr(err, errlen, "nudge wait: %s %d is not open", fds[0].revents & POLLNVAL ? "fd" : "nudge",
			  fds[0].revents & POLLNVAL ? fd : nudge);
		return FASTRMI_ERR_INVALID;
	}
	if (fds[1].revents & POLLIN) {
		rc = fr_nudge_drain(nudge, err, errlen);
		if (rc != 0)
			return rc;
	}
	/* No message: this is every wait of a fast tcp read, and formatting an empty one cost a
	 * vsnprintf each (a callback's turns make thousands a second). */
	fr_clearerr(err, errlen);
	/* Data beats the nudge: the read that follows finds it either way. */
	if (fds[0].revents != 0)
		return FASTRMI_NUDGE_READABLE;
	return fds[1].revents != 0 ? FASTRMI_NUDGE_NUDGED : FASTRMI_NUDGE_NOTHING;
}

FASTRMI_API int fastrmi_socket_readable(int fd, char *err, size_t errlen)
{
	struct pollfd look = {.fd = fd, .events = POLLIN};
	int ready;

	if (fd < 0) {
		fr_seterr(err, errlen, "look at fd %d: not a descriptor", fd);
		return FASTRMI_ERR_INVALID;
	}
	do {
		ready = poll(&look, 1, 0);
	} while (ready < 0 && errno == EINTR);
	if (ready < 0) {
		int errnum = errno;

		fr_seterr(err, errlen, "poll(fd %d): %s", fd, strerror(errnum));
		return fr_nudge_status(errnum);
	}
	if (look.revents & POLLNVAL) {
		fr_seterr(err, errlen, "look at fd %d: not open", fd);
		return FASTRMI_ERR_INVALID;
	}
	fr_clearerr(err, errlen);
	return look.revents != 0;
}
