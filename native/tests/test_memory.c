/*
 * test_memory.c - what an idle stream costs in resident memory. Two contexts of one process
 * (ofi shm, then ucx shm) open many stream pairs, pass small messages each way on each (40 KB
 * in all, as RMI's small calls would), and the process's resident set grows by only the pages
 * those messages touched: a stream's 1 MiB window and 256 KiB receive buffer are mapped, not
 * resident, until used, and the window starts over at its first page whenever it is empty.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fastrmi.h"

#define PAIRS 256
#define MESSAGE 100
#define ROUND_TRIPS 400
/* Per stream end: a page of window, a page of receive buffer, the stream itself, allocator slack. */
#define MAX_RESIDENT_PER_STREAM (32 * 1024)

static long resident_bytes(void)
{
	long size = 0, resident = -1;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	if (fclose(f) != 0)
		return -1;
	return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

static int open_ctx(int backend, const char *provider, fastrmi_ctx **ctx, unsigned char *addr,
		    size_t *len, char *err, size_t errlen)
{
	int ret = fastrmi_ctx_open(backend, provider, 0, ctx, err, errlen);

	if (ret != 0)
		return ret;
	*len = FASTRMI_ADDRESS_MAX;
	return fastrmi_ctx_address(*ctx, addr, len);
}

static void test_idle_streams(const char *label, int backend, const char *provider)
{
	static fastrmi_stream *a[PAIRS], *b[PAIRS];
	unsigned char addr_a[FASTRMI_ADDRESS_MAX], addr_b[FASTRMI_ADDRESS_MAX], msg[MESSAGE], got[MESSAGE];
	size_t len_a, len_b;
	fastrmi_ctx *ca = NULL, *cb = NULL;
	char err[256] = "", name[128];
	long before, after;
	int ret, i, opened = 0, ok = 1;

	snprintf(name, sizeof(name), "%s %s", label, provider);
	ret = open_ctx(backend, provider, &ca, addr_a, &len_a, err, sizeof(err));
	if (ret == 0)
		ret = open_ctx(backend, provider, &cb, addr_b, &len_b, err, sizeof(err));
	if (ret != 0) {
		CHECK("contexts open", 0, "%s: %d %s", name, ret, err);
		goto out;
	}
	memset(msg, 7, sizeof(msg));
	before = resident_bytes();
	for (i = 0; i < PAIRS && ok; i++, opened++) {
		ok = fastrmi_stream_open(ca, addr_b, len_b, 1000 + i, 5000 + i, &a[i], err, sizeof(err)) == 0;
		if (ok && fastrmi_stream_open(cb, addr_a, len_a, 5000 + i, 1000 + i, &b[i], err, sizeof(err)) != 0) {
			fastrmi_stream_close(a[i]);
			ok = 0;
		}
		for (int round = 0; ok && round < ROUND_TRIPS; round++)
			ok = fastrmi_send(a[i], msg, sizeof(msg), 5000, err, sizeof(err)) == sizeof(msg) &&
			     fastrmi_recv(b[i], got, sizeof(got), 5000, err, sizeof(err)) == sizeof(got) &&
			     fastrmi_send(b[i], msg, sizeof(msg), 5000, err, sizeof(err)) == sizeof(msg) &&
			     fastrmi_recv(a[i], got, sizeof(got), 5000, err, sizeof(err)) == sizeof(got);
	}
	after = resident_bytes();
	snprintf(name, sizeof(name), "%s %s: %d stream pairs, %d small messages each way on each", label,
		 provider, PAIRS, ROUND_TRIPS);
	CHECK(name, ok && opened == PAIRS, "pair %d: %s", i, err);
	printf("# %s %s: resident %ld KiB before, %ld KiB after: %ld bytes per stream end\n", label, provider,
	       before / 1024, after / 1024, ok ? (after - before) / (2 * PAIRS) : -1L);
	snprintf(name, sizeof(name), "%s %s: an idle stream end holds at most %d KiB resident", label, provider,
		 MAX_RESIDENT_PER_STREAM / 1024);
	CHECK(name, ok && before > 0 && (after - before) / (2 * PAIRS) <= MAX_RESIDENT_PER_STREAM,
	      "%ld bytes per stream end", (after - before) / (2 * PAIRS));
	for (i = 0; i < opened; i++) {
		fastrmi_stream_close(a[i]);
		fastrmi_stream_close(b[i]);
	}
out:
	if (ca != NULL)
		fastrmi_ctx_close(ca);
	if (cb != NULL)
		fastrmi_ctx_close(cb);
}

int main(void)
{
	test_idle_streams("ofi", FASTRMI_BACKEND_OFI, "shm");
	test_idle_streams("ucx", FASTRMI_BACKEND_UCX, "shm");
	return check_summary();
}
