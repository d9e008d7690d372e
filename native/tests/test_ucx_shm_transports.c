/*
 * test_ucx_shm_transports.c - what a "ucx:shm" context asks of UCX. Its endpoints use sysv
 * alone (UCX prefers it to posix; cma, knem and xpmem serve rendezvous, and every message of
 * ours is eager), so a context opens no posix interface, whose shared memory (about 1.1 MB)
 * every per-peer context paid for nothing. Seen by the descriptors a context leaves open on
 * /dev/shm/ucx_shm_posix_* files; UCX_TLS in the environment still wins, which shows those
 * descriptors are there to be seen. Messages still pass between two contexts either way.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fastrmi.h"

/* Descriptors of this process open on UCX's posix shared-memory files. */
static int posix_shm_descriptors(void)
{
	char path[300], target[PATH_MAX];
	struct dirent *entry;
	int count = 0;
	DIR *dir = opendir("/proc/self/fd");

	if (dir == NULL)
		return -1;
	while ((entry = readdir(dir)) != NULL) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", entry->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, "ucx_shm_posix") != NULL)
			count++;
	}
	if (closedir(dir) != 0)
		return -1;
	return count;
}

static int open_ctx(fastrmi_ctx **ctx, unsigned char *addr, size_t *len, char *err, size_t errlen)
{
	int ret = fastrmi_ctx_open(FASTRMI_BACKEND_UCX, "shm", 0, ctx, err, errlen);

	if (ret != 0)
		return ret;
	*len = FASTRMI_ADDRESS_MAX;
	return fastrmi_ctx_address(*ctx, addr, len);
}

/* Two contexts, a stream pair between them, a message each way; the posix descriptors they added. */
static void check_contexts(const char *label, int want_posix)
{
	unsigned char addr_a[FASTRMI_ADDRESS_MAX], addr_b[FASTRMI_ADDRESS_MAX], msg[64], got[64];
	fastrmi_ctx *ca = NULL, *cb = NULL;
	fastrmi_stream *a = NULL, *b = NULL;
	size_t len_a, len_b;
	char err[256] = "", name[160];
	int before = posix_shm_descriptors(), added, ok;

	ok = open_ctx(&ca, addr_a, &len_a, err, sizeof(err)) == 0 && open_ctx(&cb, addr_b, &len_b, err, sizeof(err)) == 0;
	added = posix_shm_descriptors() - before;
	ok = ok && fastrmi_stream_open(ca, addr_b, len_b, 11, 22, &a, err, sizeof(err)) == 0 &&
	     fastrmi_stream_open(cb, addr_a, len_a, 22, 11, &b, err, sizeof(err)) == 0;
	memset(msg, 5, sizeof(msg));
	ok = ok && fastrmi_send(a, msg, sizeof(msg), 5000, err, sizeof(err)) == sizeof(msg) &&
	     fastrmi_recv(b, got, sizeof(got), 5000, err, sizeof(err)) == sizeof(got) &&
	     fastrmi_send(b, msg, sizeof(msg), 5000, err, sizeof(err)) == sizeof(msg) &&
	     fastrmi_recv(a, got, sizeof(got), 5000, err, sizeof(err)) == sizeof(got);
	snprintf(name, sizeof(name), "%s: two contexts pass a message each way", label);
	CHECK(name, ok, "%s", err);
	printf("# %s: %d posix shared-memory descriptors added by two contexts\n", label, added);
	snprintf(name, sizeof(name), "%s: %s", label,
		 want_posix ? "the contexts hold posix shared memory" : "the contexts hold no posix shared memory");
	CHECK(name, before >= 0 && (want_posix ? added > 0 : added == 0), "%d descriptors added", added);
	if (a != NULL)
		fastrmi_stream_close(a);
	if (b != NULL)
		fastrmi_stream_close(b);
	if (ca != NULL)
		fastrmi_ctx_close(ca);
	if (cb != NULL)
		fastrmi_ctx_close(cb);
}

int main(void)
{
	if (getenv("UCX_TLS") != NULL) {
		printf("# UCX_TLS is set: what ucx:shm asks of UCX is the environment's; nothing to check\n");
		return 0;
	}
	/* The environment wins: UCX's own "shm" makes a posix interface in each context. */
	if (setenv("UCX_TLS", "shm,self", 1) != 0) {
		CHECK("setenv(UCX_TLS)", 0, "failed");
		return check_summary();
	}
	check_contexts("UCX_TLS=shm,self", 1);
	if (unsetenv("UCX_TLS") != 0) {
		CHECK("unsetenv(UCX_TLS)", 0, "failed");
		return check_summary();
	}
	check_contexts("ucx:shm", 0);
	return check_summary();
}
