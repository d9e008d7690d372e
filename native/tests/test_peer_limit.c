/*
 * test_peer_limit.c - a context of a transport that holds a bounded number of peers for life
 * (ofi shm: its domain's ep_cnt, 256 in libfabric 1.17) says how many it has left, reaches
 * exactly that many, and refuses one more with FASTRMI_ERR_FULL and a message instead of
 * failing inside the provider; its streams still work after the refusal, and a fresh context
 * reaches the new peer. A UCX context has no such limit (-1). Each peer is a context of this
 * process that exchanges a message each way, then closes, as a client JVM that exits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fastrmi.h"

struct side {
	fastrmi_ctx *ctx;
	const unsigned char *peer_addr;
	size_t peer_addr_len;
	uint64_t local_id, peer_id;
	fastrmi_stream *stream;
	int ret;
	char err[256];
};

static void *open_side(void *arg)
{
	struct side *side = arg;

	side->ret = fastrmi_stream_open(side->ctx, side->peer_addr, side->peer_addr_len, side->local_id,
					side->peer_id, &side->stream, side->err, sizeof(side->err));
	return NULL;
}

static int exchange(fastrmi_stream *a, fastrmi_stream *b, char *err, size_t errlen)
{
	char got[8];

	return fastrmi_send(a, "ping", 5, 5000, err, errlen) == 5 && fastrmi_recv(b, got, sizeof(got), 5000, err, errlen) == 5 &&
	       fastrmi_send(b, "pong", 5, 5000, err, errlen) == 5 && fastrmi_recv(a, got, sizeof(got), 5000, err, errlen) == 5 &&
	       strcmp(got, "pong") == 0;
}

/* Opens a stream pair between server (whose address is given) and a new context, both ends at
 * once (each waits for the other's grant); *peer gets the new context, the streams stay open. */
static int pair(fastrmi_ctx *server, const unsigned char *server_addr, size_t server_len, uint64_t id,
		fastrmi_ctx **peer, struct side *ours, struct side *theirs)
{
	static unsigned char peer_addr[FASTRMI_ADDRESS_MAX];
	size_t peer_len = sizeof(peer_addr);
	pthread_t thread;

	memset(ours, 0, sizeof(*ours));
	memset(theirs, 0, sizeof(*theirs));
	ours->ret = fastrmi_ctx_open(FASTRMI_BACKEND_OFI, "shm", 0, peer, ours->err, sizeof(ours->err));
	if (ours->ret != 0)
		return 0;
	ours->ret = fastrmi_ctx_address(*peer, peer_addr, &peer_len);
	if (ours->ret != 0)
		return 0;
	*ours = (struct side){ .ctx = server, .peer_addr = peer_addr, .peer_addr_len = peer_len,
			       .local_id = id, .peer_id = id + 1 };
	*theirs = (struct side){ .ctx = *peer, .peer_addr = server_addr, .peer_addr_len = server_len,
				 .local_id = id + 1, .peer_id = id };
	if (pthread_create(&thread, NULL, open_side, theirs) != 0) {
		snprintf(ours->err, sizeof(ours->err), "pthread_create failed");
		ours->ret = -1;
		return 0;
	}
	open_side(ours);
	if (pthread_join(thread, NULL) != 0) {
		snprintf(ours->err, sizeof(ours->err), "pthread_join failed");
		return 0;
	}
	return ours->ret == 0 && theirs->ret == 0;
}

static void close_side(struct side *side)
{
	if (side->ret == 0 && side->stream != NULL)
		fastrmi_stream_close(side->stream);
	side->stream = NULL;
}

static void test_ofi_shm_limit(void)
{
	unsigned char addr[FASTRMI_ADDRESS_MAX], fresh_addr[FASTRMI_ADDRESS_MAX];
	size_t len = sizeof(addr), fresh_len = sizeof(fresh_addr);
	fastrmi_ctx *server = NULL, *fresh = NULL, *peer = NULL, *first = NULL;
	struct side first_ours, first_theirs, ours, theirs;
	char err[256] = "";
	int64_t limit, left;
	int i, ok = 1;

	if (fastrmi_ctx_open(FASTRMI_BACKEND_OFI, "shm", 0, &server, err, sizeof(err)) != 0 ||
	    fastrmi_ctx_address(server, addr, &len) != 0) {
		CHECK("ofi shm context opens", 0, "%s", err);
		return;
	}
	limit = fastrmi_ctx_peers_left(server);
	CHECK("ofi shm: a fresh context says how many peers it can reach", limit > 0 && limit <= 4096, "%lld",
	      (long long)limit);
	if (limit <= 0 || limit > 4096)
		goto out;
	printf("# ofi shm: a context reaches %lld peers in its life\n", (long long)limit);
	/* The first peer stays connected throughout; every other one comes, talks and goes. */
	ok = pair(server, addr, len, 1000, &first, &first_ours, &first_theirs) &&
	     exchange(first_ours.stream, first_theirs.stream, err, sizeof(err));
	for (i = 1; ok && i < limit; i++) {
		ok = pair(server, addr, len, 1000 + 2 * (uint64_t)i, &peer, &ours, &theirs) &&
		     exchange(ours.stream, theirs.stream, err, sizeof(err));
		if (!ok && err[0] == '\0')
			memcpy(err, ours.err[0] != '\0' ? ours.err : theirs.err, sizeof(err));
		close_side(&ours);
		close_side(&theirs);
		fastrmi_ctx_close(peer);
		peer = NULL;
	}
	left = fastrmi_ctx_peers_left(server);
	CHECK("ofi shm: the context reaches as many peers as it said", ok && left == 0, "peer %d: %s (left %lld)", i,
	      err, (long long)left);
	if (!ok)
		goto out;

	ok = pair(server, addr, len, 900000, &peer, &ours, &theirs);
	CHECK("ofi shm: one more peer is refused with FASTRMI_ERR_FULL and a message",
	      !ok && ours.ret == FASTRMI_ERR_FULL && strstr(ours.err, "peers") != NULL, "ret %d: %s", ours.ret,
	      ours.err);
	close_side(&ours);
	close_side(&theirs); /* its end waited in vain for our grant, or failed: either way it goes */
	CHECK("ofi shm: the first peer's stream still works after the refusal",
	      exchange(first_ours.stream, first_theirs.stream, err, sizeof(err)), "%s", err);

	/* A fresh context for new peers reaches the refused one. */
	if (fastrmi_ctx_open(FASTRMI_BACKEND_OFI, "shm", 0, &fresh, err, sizeof(err)) != 0 ||
	    fastrmi_ctx_address(fresh, fresh_addr, &fresh_len) != 0) {
		CHECK("ofi shm: a fresh context opens", 0, "%s", err);
		goto out;
	}
	fastrmi_ctx_close(peer);
	peer = NULL;
	ok = pair(fresh, fresh_addr, fresh_len, 910000, &peer, &ours, &theirs) &&
	     exchange(ours.stream, theirs.stream, err, sizeof(err));
	CHECK("ofi shm: a fresh context reaches a new peer", ok, "%s / %s / %s", ours.err, theirs.err, err);
	close_side(&ours);
	close_side(&theirs);
out:
	close_side(&first_ours);
	close_side(&first_theirs);
	fastrmi_ctx_close(peer);
	fastrmi_ctx_close(first);
	fastrmi_ctx_close(fresh);
	fastrmi_ctx_close(server);
}

static void test_ucx_unlimited(void)
{
	fastrmi_ctx *ctx = NULL;
	char err[256] = "";

	if (fastrmi_ctx_open(FASTRMI_BACKEND_UCX, "shm", 0, &ctx, err, sizeof(err)) != 0) {
		CHECK("ucx shm context opens", 0, "%s", err);
		return;
	}
	CHECK("ucx shm: no known limit of peers (-1)", fastrmi_ctx_peers_left(ctx) == -1, "%lld",
	      (long long)fastrmi_ctx_peers_left(ctx));
	fastrmi_ctx_close(ctx);
}

/* UCX may use shared memory (one FIFO read in order per worker) unless its transports leave it out;
 * libfabric's shm guards each region with a spin lock a dead peer may hold. */
static void test_which_peers_can_block_others(void)
{
	static const struct {
		int backend;
		const char *provider;
		int blocks;
		int spins;
	} cases[] = {
		{ FASTRMI_BACKEND_UCX, "shm", 1, 0 },
		{ FASTRMI_BACKEND_UCX, "", 1, 0 },
		{ FASTRMI_BACKEND_UCX, "tcp", 0, 0 },
		{ FASTRMI_BACKEND_OFI, "shm", 1, 1 },
		{ FASTRMI_BACKEND_OFI, "tcp;ofi_rxm", 0, 0 },
	};
	char err[256] = "";

	if (getenv("UCX_TLS") != NULL) {
		printf("skip: UCX_TLS is set, and wins over the provider\n");
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fastrmi_ctx *ctx = NULL;

		if (fastrmi_ctx_open(cases[i].backend, cases[i].provider, 0, &ctx, err, sizeof(err)) != 0) {
			CHECK("context opens", 0, "backend %d, \"%s\": %s", cases[i].backend, cases[i].provider, err);
			continue;
		}
		CHECK("a dead peer can block the context's others where the transport says",
		      fastrmi_ctx_peer_can_block_others(ctx) == cases[i].blocks, "backend %d, \"%s\": %d",
		      cases[i].backend, cases[i].provider, fastrmi_ctx_peer_can_block_others(ctx));
		CHECK("a call may spin on a dead peer's lock where the transport says",
		      fastrmi_ctx_may_spin_on_dead_peer(ctx) == cases[i].spins, "backend %d, \"%s\": %d",
		      cases[i].backend, cases[i].provider, fastrmi_ctx_may_spin_on_dead_peer(ctx));
		fastrmi_ctx_close(ctx);
	}
	CHECK("no context, no peers", fastrmi_ctx_peer_can_block_others(NULL) == 0, "%d",
	      fastrmi_ctx_peer_can_block_others(NULL));
	CHECK("no context, no spinning", fastrmi_ctx_may_spin_on_dead_peer(NULL) == 0, "%d",
	      fastrmi_ctx_may_spin_on_dead_peer(NULL));
}

int main(void)
{
	test_ofi_shm_limit();
	test_ucx_unlimited();
	test_which_peers_can_block_others();
	return check_summary();
}
