/*
 * userdir.c - the user's own folder, /dev/shm/fastrmi-UID (0700): files a process publishes
 * for its peers of the same user (ofi:shm doorbells, ucx:shm worker addresses). A peer names
 * one only by kind, pid and number; the name is built here, and the file is taken only if
 * it is a regular file of this user of a plausible size: never a path or an fd off the wire.
 * Files are named KIND-PID-N (a doorbell slot's pipe KINDpipe-PID-N-SLOT, a FIFO); a process
 * removes its own at exit, and those of dead processes are swept whenever a new one is made.
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static _Atomic uint32_t fr_userdir_counter;
static pthread_once_t fr_userdir_cleanup_once = PTHREAD_ONCE_INIT;

static void fr_userdir_name(char *name, size_t size, const char *kind, uint32_t pid, uint32_t number)
{
	snprintf(name, size, "%s-%u-%u", kind, pid, number);
}

/* Opens (creating it if need be) the folder and checks it: owned by this user, closed to
 * everyone else. Returns its fd, or -1 with a message. */
int fr_userdir_open(int create, char *err, size_t errlen)
{
	char path[64];
	struct stat st;
	uid_t uid = geteuid();
	int fd;

	snprintf(path, sizeof(path), "/dev/shm/fastrmi-%u", (unsigned)uid);
	if (create && mkdir(path, 0700) != 0 && errno != EEXIST) {
		fr_seterr(err, errlen, "mkdir %s: %s", path, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fr_seterr(err, errlen, "open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		fr_seterr(err, errlen, "fstat %s: %s", path, strerror(errno));
	} else if (st.st_uid != uid) {
		fr_seterr(err, errlen, "%s belongs to uid %u, not to this user (uid %u)", path,
			  (unsigned)st.st_uid, (unsigned)uid);
	} else if ((st.st_mode & 077) != 0 && fchmod(fd, 0700) != 0) {
		fr_seterr(err, errlen, "%s is open to other users (mode %o) and chmod failed: %s", path,
			  (unsigned)(st.st_mode & 0777), strerror(errno));
	} else {
		return fd;
	}
	if (close(fd) != 0)
		fr_seterr(err, errlen, "close %s: %s", path, strerror(errno));
	return -1;
}

static void fr_userdir_close(int dir_fd)
{
	if (close(dir_fd) != 0)
		fprintf(stderr, "libfastrmi: close /dev/shm/fastrmi-%u: %s\n", (unsigned)geteuid(), strerror(errno));
}

/* Removes the files of processes that are gone (killed before their exit handler ran). */
static void fr_userdir_sweep(int dir_fd)
{
	struct dirent *entry;
	unsigned pid, number;
	char kind[16];
	int fd;
	DIR *dir;

	fd = dup(dir_fd);
	if (fd < 0)
		return; /* nothing swept this time: the next file made tries again */
	dir = fdopendir(fd);
	if (dir == NULL) {
		(void)close(fd);
		return;
	}
	while ((entry = readdir(dir)) != NULL)
		if (sscanf(entry->d_name, "%15[a-z]-%u-%u", kind, &pid, &number) == 3 && pid > 0 &&
		    kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			(void)unlinkat(dir_fd, entry->d_name, 0); /* gone already: someone else swept it */
	(void)closedir(dir); /* a directory stream opened for reading: nothing to lose */
}

/* At exit: this process's files (peers that mapped or read one keep what they have). */
static void fr_userdir_remove_own(void)
{
	struct dirent *entry;
	unsigned pid, number;
	char kind[16];
	int dir_fd;
	DIR *dir;

	dir_fd = fr_userdir_open(0, NULL, 0);
	if (dir_fd < 0)
		return; /* no folder: no file of ours either */
	dir = fdopendir(dir_fd);
	if (dir == NULL) {
		(void)close(dir_fd);
		return;
	}
	/* At exit there is no one to tell of a failure, and nothing else to do about one. */
	while ((entry = readdir(dir)) != NULL)
		if (sscanf(entry->d_name, "%15[a-z]-%u-%u", kind, &pid, &number) == 3 && pid == (unsigned)getpid())
			(void)unlinkat(dirfd(dir), entry->d_name, 0);
	(void)closedir(dir);
}

static void fr_userdir_register_cleanup(void)
{
	if (atexit(fr_userdir_remove_own) != 0)
		fprintf(stderr, "libfastrmi: atexit failed: files stay in /dev/shm/fastrmi-%u after exit\n",
			(unsigned)geteuid());
}

int fr_userdir_create(const char *kind, size_t size, uint32_t *number, char *err, size_t errlen)
{
	char name[48];
	int dir_fd, fd;

	if (pthread_once(&fr_userdir_cleanup_once, fr_userdir_register_cleanup) != 0) {
		fr_seterr(err, errlen, "pthread_once(clean-up of /dev/shm/fastrmi-%u) failed", (unsigned)geteuid());
		return -1;
	}
	dir_fd = fr_userdir_open(1, err, errlen);
	if (dir_fd < 0)
		return -1;
	fr_userdir_sweep(dir_fd);
	*number = atomic_fetch_add(&fr_userdir_counter, 1) + 1;
	fr_userdir_name(name, sizeof(name), kind, (uint32_t)getpid(), *number);
	fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		fr_seterr(err, errlen, "create %s: %s", name, strerror(errno));
	} else if (ftruncate(fd, (off_t)size) != 0) {
		fr_seterr(err, errlen, "ftruncate %s to %zu bytes: %s", name, size, strerror(errno));
		if (close(fd) != 0)
			fprintf(stderr, "libfastrmi: close %s: %s\n", name, strerror(errno));
		if (unlinkat(dir_fd, name, 0) != 0)
			fprintf(stderr, "libfastrmi: unlink %s: %s\n", name, strerror(errno));
		fd = -1;
	}
	fr_userdir_close(dir_fd);
	return fd;
}

int fr_userdir_open_peer(const char *kind, uint32_t pid, uint32_t number, int flags, size_t min_size,
			 size_t max_size, size_t *size, char *err, size_t errlen)
{
	char name[48];
	struct stat st;
	int dir_fd, fd;

	fr_userdir_name(name, sizeof(name), kind, pid, number);
	dir_fd = fr_userdir_open(0, err, errlen);
	if (dir_fd < 0)
		return -1;
	fd = openat(dir_fd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fr_seterr(err, errlen, "open the peer's %s: %s", name, strerror(errno));
	} else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		   (size_t)st.st_size < min_size || (size_t)st.st_size > max_size) {
		fr_seterr(err, errlen, "the peer's %s is not a %s file of this user (%zu to %zu bytes)", name,
			  kind, min_size, max_size);
		if (close(fd) != 0)
			fprintf(stderr, "libfastrmi: close %s: %s\n", name, strerror(errno));
		fd = -1;
	} else {
		*size = (size_t)st.st_size;
	}
	fr_userdir_close(dir_fd);
	return fd;
}

/* Removes our file or pipe `name` from the folder. */
static void fr_userdir_unlink(const char *name)
{
	int dir_fd = fr_userdir_open(0, NULL, 0);

	if (dir_fd < 0)
		return; /* the folder is gone, and the file with it */
	if (unlinkat(dir_fd, name, 0) != 0)
		fprintf(stderr, "libfastrmi: unlink %s: %s\n", name, strerror(errno));
	fr_userdir_close(dir_fd);
}

void fr_userdir_remove(const char *kind, uint32_t number)
{
	char name[48];

	fr_userdir_name(name, sizeof(name), kind, (uint32_t)getpid(), number);
	fr_userdir_unlink(name);
}

static void fr_userdir_pipe_name(char *name, size_t size, const char *kind, uint32_t pid, uint32_t number,
				 unsigned slot)
{
	snprintf(name, size, "%spipe-%u-%u-%u", kind, pid, number, slot);
}

/* Opens the pipe `name` in the folder dir_fd read-write and non-blocking, only a FIFO of this
 * user; -1 with a message otherwise. */
static int fr_userdir_open_fifo(int dir_fd, const char *name, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	fd = openat(dir_fd, name, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fr_seterr(err, errlen, "open %s: %s", name, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) || st.st_uid != geteuid()) {
		fr_seterr(err, errlen, "%s is not a pipe of this user", name);
		if (close(fd) != 0)
			fprintf(stderr, "libfastrmi: close %s: %s\n", name, strerror(errno));
		return -1;
	}
	return fd;
}

int fr_userdir_make_pipe(const char *kind, uint32_t number, unsigned slot, char *err, size_t errlen)
{
	char name[64];
	int dir_fd, fd = -1;

	fr_userdir_pipe_name(name, sizeof(name), kind, (uint32_t)getpid(), number, slot);
	dir_fd = fr_userdir_open(0, err, errlen);
	if (dir_fd < 0)
		return -1;
	if (mkfifoat(dir_fd, name, 0600) != 0)
		fr_seterr(err, errlen, "mkfifo %s: %s", name, strerror(errno));
	else if ((fd = fr_userdir_open_fifo(dir_fd, name, err, errlen)) < 0 && unlinkat(dir_fd, name, 0) != 0)
		fprintf(stderr, "libfastrmi: unlink %s: %s\n", name, strerror(errno));
	fr_userdir_close(dir_fd);
	return fd;
}

int fr_userdir_open_pipe(const char *kind, uint32_t pid, uint32_t number, unsigned slot, char *err, size_t errlen)
{
	char name[64];
	int dir_fd, fd;

	fr_userdir_pipe_name(name, sizeof(name), kind, pid, number, slot);
	dir_fd = fr_userdir_open(0, err, errlen);
	if (dir_fd < 0)
		return -1;
	fd = fr_userdir_open_fifo(dir_fd, name, err, errlen);
	fr_userdir_close(dir_fd);
	return fd;
}

void fr_userdir_remove_pipe(const char *kind, uint32_t number, unsigned slot)
{
	char name[64];

	fr_userdir_pipe_name(name, sizeof(name), kind, (uint32_t)getpid(), number, slot);
	fr_userdir_unlink(name);
}
