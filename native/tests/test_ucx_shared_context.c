/*
 * test_ucx_shared_context.c - contexts of one provider share one UCP context: a context per peer
 * costs a UCP worker of its own, not a ucp_init too (0.5 of the 0.8 ms CPU that opening one took).
 * Seen by counting ucp_init's calls: this test defines ucp_init_version (what ucp_init calls),
 * which the library's calls reach before UCX's, and hands each call on to UCX's. The last context
 * to close cleans the shared one up, and a provider of other transports gets one of its own.
 * Messages still pass between two contexts of the shared one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <ucp/api/ucp.h>

#include "check.h"
#include "fastrmi.h"

typedef ucs_status_t (*fr_init_fn)(unsigned, unsigned, const ucp_params_t *, const ucp_config_t *, ucp_context_h *);

static int inits;
static int shared_asked;

/* Default visibility (the tests build with hidden): the library's calls reach it. */
__attribute__((visibility("default"))) ucs_status_t ucp_init_version(unsigned api_major_version, unsigned api_minor_version, const ucp_params_t *params,
			      const ucp_config_t *config, ucp_context_h *context_p)
{
	fr_init_fn ucx_own = (fr_init_fn)dlsym(RTLD_NEXT, "ucp_init_version");

	inits++;
	if ((params->field_mask & UCP_PARAM_FIELD_MT_WORKERS_SHARED) && params->mt_workers_shared)
		shared_asked++;
	if (ucx_own == NULL)
		return UCS_ERR_NO_ELEM;
	return ucx_own(api_major_version, api_minor_version, params, config, context_p);
}

static int open_ctx(const char *provider, fastrmi_ctx **ctx, char *err, size_t errlen)
{
	return fastrmi_ctx_open(FASTRMI_BACKEND_UCX, provider, 0, ctx, err, errlen);
}

/* A message each way between two contexts. */
static int exchange(fastrmi_ctx *ca, fastrmi_ctx *cb, char *err, size_t errlen)
{
	unsigned char addr_a[FASTRMI_ADDRESS_MAX], addr_b[FASTRMI_ADDRESS_MAX], msg[64], got[64];
	size_t len_a = sizeof(addr_a), len_b = sizeof(addr_b);
	fastrmi_stream *a = NULL, *b = NULL;
	int ok;

	memset(msg, 7, sizeof(msg));
	ok = fastrmi_ctx_address(ca, addr_a, &len_a) == 0 && fastrmi_ctx_address(cb, addr_b, &len_b) == 0 &&
	     fastrmi_stream_open(ca, addr_b, len_b, 11, 22, &a, err, errlen) == 0 &&
	     fastrmi_stream_open(cb, addr_a, len_a, 22, 11, &b, err, errlen) == 0 &&
	     fastrmi_send(a, msg, sizeof(msg), 5000, err, errlen) == sizeof(msg) &&
	     fastrmi_recv(b, got, sizeof(got), 5000, err, errlen) == sizeof(got) &&
	     fastrmi_send(b, msg, sizeof(msg), 5000, err, errlen) == sizeof(msg) &&
	     fastrmi_recv(a, got, sizeof(got), 5000, err, errlen) == sizeof(got) && memcmp(msg, got, sizeof(msg)) == 0;
	if (a != NULL)
		fastrmi_stream_close(a);
	if (b != NULL)
		fastrmi_stream_close(b);
	return ok;
}

int main(void)
{
	fastrmi_ctx *ctx[3] = { NULL, NULL, NULL }, *other = NULL;
	char err[256] = "";
	int opened = 0;

	for (int i = 0; i < 3; i++)
		opened += open_ctx("shm", &ctx[i], err, sizeof(err)) == 0;
	CHECK("three ucx:shm contexts open", opened == 3, "%d opened: %s", opened, err);
	CHECK("they made one UCP context", inits == 1, "ucp_init called %d times", inits);
	CHECK("made for workers of many threads", shared_asked == inits, "%d of %d asked for it", shared_asked, inits);
	CHECK("two of them pass a message each way", opened == 3 && exchange(ctx[0], ctx[2], err, sizeof(err)), "%s",
	      err);
	CHECK("a context of other transports has one of its own",
	      open_ctx("tcp", &other, err, sizeof(err)) == 0 && inits == 2, "ucp_init called %d times: %s", inits, err);
	if (other != NULL)
		fastrmi_ctx_close(other);

	fastrmi_ctx_close(ctx[0]);
	ctx[0] = NULL;
	CHECK("one closing leaves it to the others", open_ctx("shm", &ctx[0], err, sizeof(err)) == 0 && inits == 2,
	      "ucp_init called %d times: %s", inits, err);
	for (int i = 0; i < 3; i++)
		if (ctx[i] != NULL)
			fastrmi_ctx_close(ctx[i]);
	CHECK("after the last closed, the next context makes it again",
	      open_ctx("shm", &ctx[0], err, sizeof(err)) == 0 && inits == 3, "ucp_init called %d times: %s", inits, err);
	if (ctx[0] != NULL)
		fastrmi_ctx_close(ctx[0]);
	return check_summary();
}
