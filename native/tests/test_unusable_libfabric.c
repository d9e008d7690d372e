/*
 * test_unusable_libfabric.c - a host whose libfabric cannot be used: the ofi probe and an ofi
 * context say why, and UCX works as before (libfabric is opened at its first use, src/libfabric.c,
 * not linked). The test runs itself again with LD_LIBRARY_PATH at a libfabric.so.1 without
 * libfabric's symbols, which the Makefile builds next to it (fake-libfabric/).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fastrmi.h"

#define ERRLEN 512
#define MARK "FASTRMI_TEST_FAKE_LIBFABRIC"

/* Again, with the fake libfabric first on the loader's path; returns only if that failed. */
static void run_with_fake_libfabric(char **argv)
{
	char dir[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - sizeof("/fake-libfabric"));
	char *slash;

	if (n <= 0)
		return;
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (slash == NULL)
		return;
	strcpy(slash, "/fake-libfabric");
	if (setenv("LD_LIBRARY_PATH", dir, 1) != 0 || setenv(MARK, "1", 1) != 0)
		return;
	execv("/proc/self/exe", argv);
}

int main(int argc, char **argv)
{
	char err[ERRLEN] = "";
	fastrmi_ctx *ctx = NULL;
	int ret;

	(void)argc;
	if (getenv(MARK) == NULL) {
		run_with_fake_libfabric(argv);
		CHECK("the test runs again with the fake libfabric", 0, "setenv or execv failed");
		return check_summary();
	}

	ret = fastrmi_ofi_probe("shm", err, sizeof(err));
	CHECK("the ofi probe fails and names the missing symbol", ret < 0 && strstr(err, "has no fi_getinfo@FABRIC_1.3") != NULL,
	      "returned %d (%s)", ret, err);

	err[0] = '\0';
	ret = fastrmi_ctx_open(FASTRMI_BACKEND_OFI, "shm", 0, &ctx, err, sizeof(err));
	CHECK("an ofi context is refused and says why", ret == FASTRMI_ERR_PROVIDER && strstr(err, "libfabric.so.1") != NULL,
	      "returned %d (%s)", ret, err);

	CHECK("fastrmi_ofi_version is 0 without a usable libfabric", fastrmi_ofi_version() == 0, "got %u",
	      fastrmi_ofi_version());

	err[0] = '\0';
	ctx = NULL;
	ret = fastrmi_ctx_open(FASTRMI_BACKEND_UCX, "shm", 0, &ctx, err, sizeof(err));
	CHECK("a UCX context opens all the same", ret == 0, "returned %d (%s)", ret, err);
	if (ret == 0)
		fastrmi_ctx_close(ctx);
	return check_summary();
}
