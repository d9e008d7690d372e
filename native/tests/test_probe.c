/*
 * test_probe.c - checks the probe API of libfastrmi.so against the libfabric and
 * UCX installed on this host (real providers, no mocks).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fastrmi.h"

#define ERRLEN 512

static void test_version(void)
{
	const char *v = fastrmi_version();

	CHECK("fastrmi_version is non-empty", v != NULL && v[0] != '\0',
	      "got %s%s%s", v ? "\"" : "", v ? v : "NULL", v ? "\"" : "");
}

static void test_ofi_version(void)
{
	unsigned v = fastrmi_ofi_version();

	/* We ask for API 1.9, so anything older could not work. */
	CHECK("fastrmi_ofi_version is >= 1.9", (v >> 16) > 1 || ((v >> 16) == 1 && (v & 0xffff) >= 9),
	      "got %u.%u", v >> 16, v & 0xffff);
}

static void test_ofi_found(const char *provider)
{
	char name[128];
	char err[ERRLEN];
	int ret;

	snprintf(name, sizeof(name), "libfabric finds provider \"%s\" (FI_EP_RDM)", provider);
	memset(err, 'x', sizeof(err));
	ret = fastrmi_ofi_probe(provider, err, sizeof(err));
	if (ret != 0) {
		CHECK(name, 0, "returned %d: %s", ret, err);
		return;
	}
	CHECK(name, err[0] == '\0', "returned 0 but left err = \"%.60s\"", err);
}

static void test_ofi_unknown(void)
{
	const char *name = "libfabric does not find \"nosuchprovider\" and says why";
	char err[ERRLEN] = "";
	int ret = fastrmi_ofi_probe("nosuchprovider", err, sizeof(err));

	if (ret >= 0)
		CHECK(name, 0, "returned %d, expected a negative fi errno", ret);
	else if (err[0] == '\0')
		CHECK(name, 0, "returned %d with an empty message", ret);
	else if (strstr(err, "nosuchprovider") == NULL)
		CHECK(name, 0, "message does not name the provider: %s", err);
	else
		CHECK(name, 1, "%s", "");
	if (ret < 0)
		fprintf(stderr, "# fastrmi_ofi_probe(\"nosuchprovider\") = %d: %s\n", ret, err);
}

static void test_ofi_bad_args(void)
{
	char err[ERRLEN] = "";
	char small[8];
	int ret;

	ret = fastrmi_ofi_probe(NULL, err, sizeof(err));
	CHECK("libfabric probe rejects a NULL provider name", ret < 0 && err[0] != '\0',
	      "returned %d, err \"%s\"", ret, err);

	err[0] = '\0';
	ret = fastrmi_ofi_probe("", err, sizeof(err));
	CHECK("libfabric probe rejects an empty provider name", ret < 0 && err[0] != '\0',
	      "returned %d, err \"%s\"", ret, err);

	/* A short buffer gets a truncated, terminated message; no buffer is fine too. */
	memset(small, 'x', sizeof(small));
	ret = fastrmi_ofi_probe("nosuchprovider", small, sizeof(small));
	CHECK("libfabric probe truncates its message to the buffer",
	      ret < 0 && memchr(small, '\0', sizeof(small)) == &small[sizeof(small) - 1],
	      "returned %d, buffer not terminated at its last byte", ret);

	ret = fastrmi_ofi_probe("nosuchprovider", NULL, 0);
	CHECK("libfabric probe works without an error buffer", ret < 0, "returned %d", ret);
}

static void test_ucx(void)
{
	const char *v = fastrmi_ucx_version();
	char err[ERRLEN];
	int ret;

	CHECK("fastrmi_ucx_version is non-empty", v != NULL && v[0] != '\0',
	      "got %s", v ? "\"\"" : "NULL");

	memset(err, 'x', sizeof(err));
	ret = fastrmi_ucx_probe(err, sizeof(err));
	if (ret != 0)
		CHECK("UCX context (TAG | WAKEUP) and worker initialize", 0,
		      "returned %d: %s", ret, err);
	else
		CHECK("UCX context (TAG | WAKEUP) and worker initialize", err[0] == '\0',
		      "returned 0 but left err = \"%.60s\"", err);
}

int main(void)
{
	unsigned ofi = fastrmi_ofi_version();
	const char *ucx = fastrmi_ucx_version();

	/* Diagnostics go to stderr; stdout carries only the check lines and the summary. */
	fprintf(stderr, "# libfastrmi %s, libfabric %u.%u, UCX %s\n", fastrmi_version(),
	       ofi >> 16, ofi & 0xffff, ucx ? ucx : "?");

	test_version();
	test_ofi_version();
	test_ofi_found("shm");
	/* tcp has no native RDM endpoint here: libfabric layers ofi_rxm ("tcp;ofi_rxm"). */
	test_ofi_found("tcp");
	test_ofi_found("tcp;ofi_rxm");
	test_ofi_unknown();
	test_ofi_bad_args();
	test_ucx();

	return check_summary();
}
