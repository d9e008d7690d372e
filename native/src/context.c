/*
 * context.c - a context's life (open, wait settings, address, close) and its table of peers.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "stream.h"

/* ---- peers --------------------------------------------------------------------------- */

struct fr_peer *fr_peer_get(struct fastrmi_ctx *ctx, const void *addr, size_t addr_len,
			    char *err, size_t errlen, int *code)
{
	struct fr_peer *peer;
	int ret;

	for (peer = ctx->peers; peer != NULL; peer = peer->next) {
		if (peer->addr_len == addr_len && memcmp(peer->addr, addr, addr_len) == 0 &&
		    !peer->failed) {
			if (peer->refs == 0 && ctx->be->peer_reuse != NULL) {
				ret = ctx->be->peer_reuse(ctx, peer, err, errlen);
				if (ret != 0) {
					*code = ret;
					return NULL;
				}
			}
			peer->refs++;
			return peer;
		}
	}
	if (ctx->peer_limit > 0 && ctx->npeers >= ctx->peer_limit) {
		fr_seterr(err, errlen, "the %s context reaches %u peers already, the most it can hold: open a new "
			  "context for new peers (fastrmi_ctx_peers_left)", ctx->be->name, ctx->npeers);
		*code = FASTRMI_ERR_FULL;
		return NULL;
	}
	peer = calloc(1, sizeof(*peer));
	if (peer == NULL || (peer->addr = malloc(addr_len)) == NULL) {
		free(peer);
		fr_seterr(err, errlen, "out of memory for a peer");
		*code = FASTRMI_ERR_NOMEM;
		return NULL;
	}
	memcpy(peer->addr, addr, addr_len);
	peer->addr_len = addr_len;
	ret = ctx->be->peer_open(ctx, peer, err, errlen);
	if (ret != 0) {
		free(peer->addr);
		free(peer);
		*code = ret;
		return NULL;
	}
	peer->refs = 1;
	peer->next = ctx->peers;
	ctx->peers = peer;
	ctx->npeers++;
	return peer;
}

/* Frees the peer when neither a stream nor a message in flight uses it (unless the
 * backend keeps idle peers: then it waits, unused, for the next stream to it). */
void fr_peer_unref(struct fastrmi_ctx *ctx, struct fr_peer *peer)
{
	struct fr_peer **p;

	if (peer == NULL || --peer->refs > 0)
		return;
	if (ctx->be->keeps_idle_peers) {
		/* Kept for its address's place only (a failed one too: its place cannot be reused either);
		 * what else it holds (a doorbell) goes till it is used again. */
		if (ctx->be->peer_idle != NULL)
			ctx->be->peer_idle(ctx, peer);
		return;
	}
	for (p = &ctx->peers; *p != NULL; p = &(*p)->next) {
		if (*p == peer) {
			*p = peer->next;
			break;
		}
	}
	ctx->npeers--; /* a backend that keeps idle peers never gets here: their places stay counted */
	ctx->be->peer_close(ctx, peer);
	free(peer->addr);
	free(peer);
}

/* ---- context ------------------------------------------------------------------------- */

static void fr_ctx_free_locks(struct fastrmi_ctx *ctx)
{
	fr_report_errno("pthread_condattr_destroy", pthread_condattr_destroy(&ctx->condattr));
	fr_report_errno("pthread_mutex_destroy(context lock)", pthread_mutex_destroy(&ctx->lock));
}

/*
 * The context lock spins a little (glibc's adaptive mutex) before it sleeps: its holders keep it
 * for microseconds, and with many threads on one context (8 clients on 2 cores) a sleeping
 * mutex turned most contention into futex wake-ups between them (0.17-0.19 waits and 0.34-0.37
 * wakes per call and JVM on ofi:shm star8; adaptive: 0.03 and 0.08, at the same CPU per call).
 */
static int fr_context_lock_init(pthread_mutex_t *lock, char *err, size_t errlen)
{
	pthread_mutexattr_t attr;
	int ret;

	ret = fr_check_init(pthread_mutexattr_init(&attr), "pthread_mutexattr_init(context lock)", err, errlen);
	if (ret != 0)
		return ret;
	ret = fr_check_init(pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP),
			    "pthread_mutexattr_settype(context lock, adaptive)", err, errlen);
	if (ret == 0)
		ret = fr_check_init(pthread_mutex_init(lock, &attr), "pthread_mutex_init(context lock)", err, errlen);
	fr_report_errno("pthread_mutexattr_destroy(context lock)", pthread_mutexattr_destroy(&attr));
	return ret;
}

FASTRMI_API int fastrmi_ctx_open(int backend, const char *provider, uint32_t spin_usec,
				 fastrmi_ctx **ctxp, char *err, size_t errlen)
{
	const struct fr_backend *be;
	struct fastrmi_ctx *ctx;
	unsigned i;
	int ret;

	fr_clearerr(err, errlen);
	if (ctxp == NULL) {
		fr_seterr(err, errlen, "fastrmi_ctx_open: ctx is NULL");
		return FASTRMI_ERR_INVALID;
	}
	*ctxp = NULL;
	ret = fr_check_signal_settings(err, errlen);
	if (ret != 0)
		return ret;
	switch (backend) {
	case FASTRMI_BACKEND_OFI:
		be = &fr_ofi_backend;
		break;
	case FASTRMI_BACKEND_UCX:
		be = &fr_ucx_backend;
		break;
	default:
		fr_seterr(err, errlen, "fastrmi_ctx_open: unknown backend %d (FASTRMI_BACKEND_OFI %d or "
			  "FASTRMI_BACKEND_UCX %d)", backend, FASTRMI_BACKEND_OFI, FASTRMI_BACKEND_UCX);
		return FASTRMI_ERR_INVALID;
	}

	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		fr_seterr(err, errlen, "fastrmi_ctx_open: out of memory");
		return FASTRMI_ERR_NOMEM;
	}
	ctx->be = be;
	ctx->chunk = FR_CHUNK;
	ctx->spin_nsec = (uint64_t)spin_usec * 1000u;
	ctx->deputy_nsec = FR_DEPUTY_NSEC;
	for (i = 0; i < FR_TX_SLOTS; i++) {
		if (fr_add_tx(ctx) != 0) {
			fr_free_all_tx(ctx);
			free(ctx);
			fr_seterr(err, errlen, "fastrmi_ctx_open: out of memory for send buffers");
			return FASTRMI_ERR_NOMEM;
		}
	}

	ret = fr_context_lock_init(&ctx->lock, err, errlen);
	if (ret != 0) {
		fr_free_all_tx(ctx);
		free(ctx);
		return ret;
	}
	/* Timed waits use CLOCK_MONOTONIC, like every deadline here. */
	ret = fr_check_init(pthread_condattr_init(&ctx->condattr), "pthread_condattr_init", err, errlen);
	if (ret != 0) {
		fr_report_errno("pthread_mutex_destroy(context lock)", pthread_mutex_destroy(&ctx->lock));
		fr_free_all_tx(ctx);
		free(ctx);
		return ret;
	}
	ret = fr_check_init(pthread_condattr_setclock(&ctx->condattr, CLOCK_MONOTONIC),
			    "pthread_condattr_setclock(CLOCK_MONOTONIC)", err, errlen);
	if (ret == 0) {
		ret = be->open(ctx, provider, err, errlen);
		if (ret != 0)
			be->close(ctx);
	}
	if (ret != 0) {
		fr_ctx_free_locks(ctx);
		fr_free_all_tx(ctx);
		free(ctx);
		return ret;
	}
	*ctxp = ctx;
	return 0;
}

FASTRMI_API int fastrmi_ctx_set_wait(fastrmi_ctx *ctx, int mode, int32_t usable_cpus, char *err, size_t errlen)
{
	fr_clearerr(err, errlen);
	if (ctx == NULL || (mode != FASTRMI_WAIT_ADAPTIVE && mode != FASTRMI_WAIT_SPIN && mode != FASTRMI_WAIT_BLOCK)) {
		fr_seterr(err, errlen, "fastrmi_ctx_set_wait: %s", ctx == NULL ? "context is NULL" : "unknown mode");
		return FASTRMI_ERR_INVALID;
	}
	if (usable_cpus > 0)
		fr_wait_set_usable_cpus(usable_cpus);
	pthread_mutex_lock(&ctx->lock);
	ctx->wait_mode = mode;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

FASTRMI_API int fastrmi_ctx_address(fastrmi_ctx *ctx, void *buf, size_t *len)
{
	if (ctx == NULL || len == NULL)
		return FASTRMI_ERR_INVALID;
	if (buf == NULL || *len < ctx->addr_len) {
		*len = ctx->addr_len;
		return FASTRMI_ERR_INVALID;
	}
	memcpy(buf, ctx->addr, ctx->addr_len);
	*len = ctx->addr_len;
	return 0;
}

FASTRMI_API int64_t fastrmi_ctx_peers_left(fastrmi_ctx *ctx)
{
	int64_t left;

	if (ctx == NULL)
		return 0;
	pthread_mutex_lock(&ctx->lock);
	left = ctx->peer_limit == 0 ? -1 : ctx->npeers >= ctx->peer_limit ? 0 : (int64_t)(ctx->peer_limit - ctx->npeers);
	pthread_mutex_unlock(&ctx->lock);
	return left;
}

FASTRMI_API int fastrmi_ctx_peer_can_block_others(fastrmi_ctx *ctx)
{
	return ctx != NULL && ctx->peer_can_block_others;
}

FASTRMI_API int fastrmi_ctx_may_spin_on_dead_peer(fastrmi_ctx *ctx)
{
	return ctx != NULL && ctx->may_spin_on_dead_peer;
}

FASTRMI_API int64_t fastrmi_ctx_peers_gone(fastrmi_ctx *ctx)
{
	struct fr_peer *peer;
	int64_t gone = 0;

	if (ctx == NULL)
		return 0;
	pthread_mutex_lock(&ctx->lock);
	for (peer = ctx->peers; peer != NULL; peer = peer->next)
		if (peer->refs == 0 &&
		    (peer->failed || (ctx->be->peer_is_gone != NULL && ctx->be->peer_is_gone(ctx, peer))))
			gone++;
	pthread_mutex_unlock(&ctx->lock);
	return gone;
}

FASTRMI_API void fastrmi_ctx_close(fastrmi_ctx *ctx)
{
	struct fr_rx *rx;
	unsigned i;

	if (ctx == NULL)
		return;
	pthread_mutex_lock(&ctx->lock);
	for (i = 0; i < FR_STREAM_BUCKETS; i++)
		while (ctx->buckets[i] != NULL)
			fr_stream_free(ctx->buckets[i]);
	/* Closes peers still held by messages in flight, then the endpoint/worker: after
	 * that the provider writes no buffer of ours, so they can be freed. */
	while (ctx->peers != NULL) {
		struct fr_peer *peer = ctx->peers;

		ctx->peers = peer->next;
		ctx->be->peer_close(ctx, peer);
		free(peer->addr);
		free(peer);
	}
	ctx->be->close(ctx);
	while ((rx = ctx->orphans) != NULL) {
		ctx->orphans = rx->next_orphan;
		fr_rx_free(rx);
	}
	pthread_mutex_unlock(&ctx->lock);
	fr_ctx_free_locks(ctx);
	fr_free_all_tx(ctx);
	free(ctx);
}
