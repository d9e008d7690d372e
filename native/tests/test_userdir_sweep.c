/*
 * test_userdir_sweep.c - making files in the user's folder sweeps the files of processes that are
 * gone at most once every few seconds, not once per file: a JVM that opened a ucx:shm context per
 * peer at once read the whole folder (every file of every JVM of the user) for each of them. Seen
 * by counting directory streams opened: this test defines fdopendir, which the library's calls
 * reach before the C library's, and hands each call on.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>

#include "check.h"
#include "fastrmi.h"

#define CONTEXTS 4

typedef DIR *(*fr_fdopendir_fn)(int);

static int streams;

/* Default visibility (the tests build with hidden): the library's calls reach it. */
__attribute__((visibility("default"))) DIR *fdopendir(int fd)
{
	fr_fdopendir_fn libc_own = (fr_fdopendir_fn)dlsym(RTLD_NEXT, "fdopendir");

	streams++;
	return libc_own != NULL ? libc_own(fd) : NULL;
}

int main(void)
{
	fastrmi_ctx *ctx[CONTEXTS] = { NULL };
	char err[256] = "";
	int opened = 0;

	for (int i = 0; i < CONTEXTS; i++)
		opened += fastrmi_ctx_open(FASTRMI_BACKEND_UCX, "shm", 0, &ctx[i], err, sizeof(err)) == 0;
	CHECK("the ucx:shm contexts open, a file each in the user's folder", opened == CONTEXTS, "%d opened: %s",
	      opened, err);
	CHECK("the folder was read once, not once per file", streams == 1, "%d directory streams for %d files", streams,
	      opened);
	for (int i = 0; i < CONTEXTS; i++)
		if (ctx[i] != NULL)
			fastrmi_ctx_close(ctx[i]);
	return check_summary();
}
