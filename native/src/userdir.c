/*
 * userdir.c - the user's own folder, /dev/shm/fastrmi-UID (0700): files a process publishes
 * for its peers of the same user (ofi:shm doorbells, ucx:shm worker addresses). A peer names
 * one only by kind, pid and number; the name is built here, and the file is taken only if
 * it is a regular file of this user of a plausible size: never a path or an fd off the wire.
 *
 * Files are named KIND-nsNS-PID-N (a doorbell slot's pipe KINDpipe-nsNS-PID-N-SLOT, a FIFO): NS is
 * the pid namespace's inode, so that two processes of one pid in two namespaces that share
 * /dev/shm (containers of one pod) never meet in a name, and N counts from a random number of
 * the process's own, so that a process with a reused pid never meets a killed one's files. A
 * process holds a shared flock on each of its files for as long as they live: a file nobody
 * holds belongs to a process that is gone, whatever namespace it ran in (the kernel releases a
 * dead process's locks). A process removes its own at exit; those of processes that are gone are
 * swept when a new one is made, at most every FR_SWEEP_MIN_AGE_SEC (fr_sweep_unheld, fr_sweep_due).
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* A file's creator takes its lock a moment after making it: younger files are never swept. */
#define FR_SWEEP_MIN_AGE_SEC 10

/* This process's identity in names: its pid namespace and a random number of its own. */
static uint64_t fr_names_pid_ns;
static uint32_t fr_names_random;
static pthread_once_t fr_names_once = PTHREAD_ONCE_INIT;

static void fr_names_init(void)
{
	struct stat st;

	/* 0 where /proc is not there: such processes can only meet each other in names. */
	fr_names_pid_ns = stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
	if (getrandom(&fr_names_random, sizeof(fr_names_random), GRND_NONBLOCK) != (ssize_t)sizeof(fr_names_random)) {
		struct timespec ts;

		/* No entropy yet (early boot): the clock still tells a reused pid's process apart. */
		clock_gettime(CLOCK_REALTIME, &ts);
		fr_names_random = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec ^ ((uint32_t)getpid() << 16);
	}
	if (fr_names_random == 0)
		fr_names_random = 1;
}

uint64_t fr_pid_namespace(void)
{
	(void)pthread_once(&fr_names_once, fr_names_init); /* fails only with a bad argument */
	return fr_names_pid_ns;
}

uint32_t fr_process_random(void)
{
	(void)pthread_once(&fr_names_once, fr_names_init);
	return fr_names_random;
}

void fr_sweep_unheld(int dir_fd, int (*ours)(const char *name))
{
	struct dirent *entry;
	struct stat st;
	time_t now = time(NULL);
	int fd, file;
	DIR *dir;

	fd = dup(dir_fd);
	if (fd < 0)
		return; /* nothing swept this time: the next file made tries again */
	dir = fdopendir(fd);
	if (dir == NULL) {
		(void)close(fd);
		return;
	}
	while ((entry = readdir(dir)) != NULL) {
		if (!ours(entry->d_name) || fstatat(dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    st.st_uid != geteuid() || (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) ||
		    now - st.st_ctime < FR_SWEEP_MIN_AGE_SEC)
			continue;
		file = openat(dir_fd, entry->d_name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
		if (file < 0)
			continue; /* gone already: someone else swept it */
		if (flock(file, LOCK_EX | LOCK_NB) == 0)
			(void)unlinkat(dir_fd, entry->d_name, 0); /* held by no one: its process is gone */
		(void)close(file); /* opened for reading: nothing to lose */
	}
	(void)closedir(dir); /* a directory stream opened for reading: nothing to lose */
}

int fr_sweep_due(_Atomic int64_t *last_sec)
{
	struct timespec ts;
	int64_t now, last;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 1; /* no clock: sweep, as before there was one */
	/* Counted from 1, so that the zero of a sweep never made is never "just now". */
	now = (int64_t)ts.tv_sec + 1;
	last = atomic_load(last_sec);
	return (last == 0 || now - last >= FR_SWEEP_MIN_AGE_SEC) && atomic_compare_exchange_strong(last_sec, &last, now);
}

static _Atomic uint32_t fr_userdir_counter;
static _Atomic int64_t fr_userdir_swept; /* fr_sweep_due's clock for the folder */
static pthread_once_t fr_userdir_cleanup_once = PTHREAD_ONCE_INIT;

/* Our files' locks (a dup of each file's fd, flocked shared), until the file is removed. */
struct fr_held {
	char kind[16];
	uint32_t number;
	int fd;
	struct fr_held *next;
};
static struct fr_held *fr_held_files;
static pthread_mutex_t fr_held_lock = PTHREAD_MUTEX_INITIALIZER;

static void fr_userdir_name(char *name, size_t size, const char *kind, uint32_t pid, uint32_t number)
{
	snprintf(name, size, "%s-ns%llu-%u-%u", kind, (unsigned long long)fr_pid_namespace(), pid, number);
}

/* KIND-nsNS-PID-... : one of our names; *ns and *pid from it. */
static int fr_userdir_parse(const char *name, unsigned long long *ns, unsigned *pid)
{
	char kind[16];
	int end = 0;

	return sscanf(name, "%15[a-z]-ns%llu-%u-%*u%n", kind, ns, pid, &end) == 3 && end > 0;
}

static int fr_userdir_is_ours(const char *name)
{
	unsigned long long ns;
	unsigned pid;

	return fr_userdir_parse(name, &ns, &pid);
}

/* Squatted: /dev/shm is open to all, and someone made our folder's name first. */
static void fr_userdir_squatted(const char *path, const struct stat *st, uid_t uid, char *err, size_t errlen)
{
	if (!S_ISDIR(st->st_mode))
		fr_seterr(err, errlen, "%s is not a folder (a link or a file someone made in its place): shared memory "
			  "is off for this user until it is removed (rm %s)", path, path);
	else
		fr_seterr(err, errlen, "%s belongs to uid %u, not to this user (uid %u): another user made it first, "
			  "and shared memory is off for this user until root removes it (rm -r %s)", path,
			  (unsigned)st->st_uid, (unsigned)uid, path);
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
	/* Looked at before opening: another user's folder of mode 0700 cannot even be opened. */
	if (lstat(path, &st) == 0 && (!S_ISDIR(st.st_mode) || st.st_uid != uid)) {
		fr_userdir_squatted(path, &st, uid, err, errlen);
		return -1;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		fr_seterr(err, errlen, "open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		fr_seterr(err, errlen, "fstat %s: %s", path, strerror(errno));
	} else if (!S_ISDIR(st.st_mode) || st.st_uid != uid) {
		fr_userdir_squatted(path, &st, uid, err, errlen); /* swapped in since the look */
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

/* At exit: this process's files (peers that mapped or read one keep what they have). */
static void fr_userdir_remove_own(void)
{
	struct dirent *entry;
	unsigned long long ns;
	unsigned pid;
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
		if (fr_userdir_parse(entry->d_name, &ns, &pid) && ns == fr_pid_namespace() && pid == (unsigned)getpid())
			(void)unlinkat(dirfd(dir), entry->d_name, 0);
	(void)closedir(dir);
}

static void fr_userdir_register_cleanup(void)
{
	if (atexit(fr_userdir_remove_own) != 0)
		fprintf(stderr, "libfastrmi: atexit failed: files stay in /dev/shm/fastrmi-%u after exit\n",
			(unsigned)geteuid());
}

/* Keeps a shared lock on fd's file (through a dup of it) until fr_userdir_remove. 0, or -1 with a message. */
static int fr_userdir_hold(const char *kind, uint32_t number, int fd, const char *name, char *err, size_t errlen)
{
	struct fr_held *held;

	if (flock(fd, LOCK_SH) != 0) {
		fr_seterr(err, errlen, "flock %s: %s", name, strerror(errno));
		return -1;
	}
	held = calloc(1, sizeof(*held));
	if (held == NULL) {
		fr_seterr(err, errlen, "out of memory to hold %s", name);
		return -1;
	}
	held->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (held->fd < 0) {
		fr_seterr(err, errlen, "dup %s: %s", name, strerror(errno));
		free(held);
		return -1;
	}
	snprintf(held->kind, sizeof(held->kind), "%s", kind);
	held->number = number;
	pthread_mutex_lock(&fr_held_lock);
	held->next = fr_held_files;
	fr_held_files = held;
	pthread_mutex_unlock(&fr_held_lock);
	return 0;
}

static void fr_userdir_release(const char *kind, uint32_t number)
{
	struct fr_held **at, *held = NULL;

	pthread_mutex_lock(&fr_held_lock);
	for (at = &fr_held_files; *at != NULL; at = &(*at)->next) {
		if ((*at)->number == number && strcmp((*at)->kind, kind) == 0) {
			held = *at;
			*at = held->next;
			break;
		}
	}
	pthread_mutex_unlock(&fr_held_lock);
	if (held == NULL)
		return;
	if (close(held->fd) != 0)
		fprintf(stderr, "libfastrmi: close the lock of %s %u: %s\n", kind, number, strerror(errno));
	free(held);
}

/* Closes and removes a file just made that cannot be used; -1. */
static int fr_userdir_discard(int dir_fd, const char *name, int fd)
{
	if (close(fd) != 0)
		fprintf(stderr, "libfastrmi: close %s: %s\n", name, strerror(errno));
	if (unlinkat(dir_fd, name, 0) != 0)
		fprintf(stderr, "libfastrmi: unlink %s: %s\n", name, strerror(errno));
	return -1;
}

/* Tries to make a file this many numbers on before giving up (another process's of the same
 * pid and random number: a clash that the next number ends). */
#define FR_USERDIR_TRIES 8

int fr_userdir_create(const char *kind, size_t size, uint32_t *number, char *err, size_t errlen)
{
	char name[80];
	int dir_fd, fd = -1;

	if (pthread_once(&fr_userdir_cleanup_once, fr_userdir_register_cleanup) != 0) {
		fr_seterr(err, errlen, "pthread_once(clean-up of /dev/shm/fastrmi-%u) failed", (unsigned)geteuid());
		return -1;
	}
	dir_fd = fr_userdir_open(1, err, errlen);
	if (dir_fd < 0)
		return -1;
	if (fr_sweep_due(&fr_userdir_swept))
		fr_sweep_unheld(dir_fd, fr_userdir_is_ours);
	for (int tries = 0; fd < 0 && tries < FR_USERDIR_TRIES; tries++) {
		*number = fr_process_random() + atomic_fetch_add(&fr_userdir_counter, 1);
		if (*number == 0)
			continue; /* 0 names no file */
		fr_userdir_name(name, sizeof(name), kind, (uint32_t)getpid(), *number);
		fd = openat(dir_fd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		fr_seterr(err, errlen, "create %s: %s", name, strerror(errno));
		fr_userdir_close(dir_fd);
		return -1;
	}
	if (ftruncate(fd, (off_t)size) != 0) {
		fr_seterr(err, errlen, "ftruncate %s to %zu bytes: %s", name, size, strerror(errno));
		fd = fr_userdir_discard(dir_fd, name, fd);
	} else if (fr_userdir_hold(kind, *number, fd, name, err, errlen) != 0) {
		fd = fr_userdir_discard(dir_fd, name, fd);
	}
	fr_userdir_close(dir_fd);
	return fd;
}

int fr_userdir_open_peer(const char *kind, uint32_t pid, uint32_t number, int flags, size_t min_size,
			 size_t max_size, size_t *size, char *err, size_t errlen)
{
	char name[80];
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
	char name[80];

	fr_userdir_name(name, sizeof(name), kind, (uint32_t)getpid(), number);
	fr_userdir_unlink(name);
	fr_userdir_release(kind, number);
}

static void fr_userdir_pipe_name(char *name, size_t size, const char *kind, uint32_t pid, uint32_t number,
				 unsigned slot)
{
	snprintf(name, size, "%spipe-ns%llu-%u-%u-%u", kind, (unsigned long long)fr_pid_namespace(), pid, number, slot);
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
	char name[96];
	int dir_fd, fd = -1;

	fr_userdir_pipe_name(name, sizeof(name), kind, (uint32_t)getpid(), number, slot);
	dir_fd = fr_userdir_open(0, err, errlen);
	if (dir_fd < 0)
		return -1;
	if (mkfifoat(dir_fd, name, 0600) != 0) {
		fr_seterr(err, errlen, "mkfifo %s: %s", name, strerror(errno));
	} else if ((fd = fr_userdir_open_fifo(dir_fd, name, err, errlen)) >= 0 && flock(fd, LOCK_SH) != 0) {
		/* Held through the fd the doorbell keeps: unheld, a sweep would take it. */
		fr_seterr(err, errlen, "flock %s: %s", name, strerror(errno));
		if (close(fd) != 0)
			fprintf(stderr, "libfastrmi: close %s: %s\n", name, strerror(errno));
		fd = -1;
	}
	if (fd < 0 && unlinkat(dir_fd, name, 0) != 0 && errno != ENOENT)
		fprintf(stderr, "libfastrmi: unlink %s: %s\n", name, strerror(errno));
	fr_userdir_close(dir_fd);
	return fd;
}

int fr_userdir_open_pipe(const char *kind, uint32_t pid, uint32_t number, unsigned slot, char *err, size_t errlen)
{
	char name[96];
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
	char name[96];

	fr_userdir_pipe_name(name, sizeof(name), kind, (uint32_t)getpid(), number, slot);
	fr_userdir_unlink(name);
}
