/*
 * test_socket_holder.c - fastrmi_process_holds_socket reads the links of a process's newest
 * descriptors first: the socket a handshake asks about is among the last the peer opened, and a
 * server with thousands of connections read a link for each of them, oldest first. Seen by counting
 * link reads: this test defines readlinkat, which the library's calls reach before the C library's,
 * and hands each call on.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fastrmi.h"

#define OTHERS 300

typedef ssize_t (*fr_readlinkat_fn)(int, const char *, char *, size_t);

static int link_reads;

/* Default visibility (the tests build with hidden): the library's calls reach it. */
__attribute__((visibility("default"))) ssize_t readlinkat(int dir_fd, const char *path, char *buf, size_t size)
{
	fr_readlinkat_fn libc_own = (fr_readlinkat_fn)dlsym(RTLD_NEXT, "readlinkat");

	link_reads++;
	if (libc_own == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return libc_own(dir_fd, path, buf, size);
}

static unsigned long long inode_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

int main(void)
{
	int oldest[2], newest[2], others[OTHERS], opened = 0, ret;
	char err[256] = "";

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, oldest) != 0) {
		CHECK("a socket pair before the others", 0, "%s", strerror(errno));
		return check_summary();
	}
	for (int i = 0; i < OTHERS; i++)
		opened += (others[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;
	CHECK("many other descriptors open", opened == OTHERS, "%d of %d: %s", opened, OTHERS, strerror(errno));
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, newest) != 0) {
		CHECK("a socket pair after them", 0, "%s", strerror(errno));
		return check_summary();
	}

	link_reads = 0;
	ret = fastrmi_process_holds_socket(getpid(), inode_of(newest[1]), err, sizeof(err));
	CHECK("the newest socket is held", ret == 1, "returned %d: %s", ret, err);
	CHECK("found among the first links read", link_reads <= 2, "%d links read of %d descriptors", link_reads,
	      OTHERS + 4);

	link_reads = 0;
	ret = fastrmi_process_holds_socket(getpid(), inode_of(oldest[0]), err, sizeof(err));
	CHECK("a socket opened before all the others is found too", ret == 1, "returned %d: %s", ret, err);
	CHECK("after reading past the others", link_reads > OTHERS, "%d links read", link_reads);

	ret = fastrmi_process_holds_socket(getpid(), inode_of(newest[1]) + 1000000, err, sizeof(err));
	CHECK("a socket of no descriptor here is not held", ret == 0, "returned %d: %s", ret, err);

	for (int i = 0; i < OTHERS; i++)
		if (others[i] >= 0 && close(others[i]) != 0)
			CHECK("close(/dev/null)", 0, "%s", strerror(errno));
	for (int i = 0; i < 2; i++)
		if (close(oldest[i]) != 0 || close(newest[i]) != 0)
			CHECK("close(socket pair)", 0, "%s", strerror(errno));
	return check_summary();
}
