/*
 * ucx.c - UCX backend: the probe, and the message transport under stream.c.
 *
 * One UCP worker per context and one endpoint per peer worker, shared by all streams to
 * that peer; streams are told apart by tag (ucp_tag_send_nbx / ucp_tag_recv_nbx with a
 * full mask). UCX picks the transports (UCX_TLS and every other UCX_* variable apply):
 * shared memory on one host, tcp or RDMA otherwise. Waiting: ucp_worker_arm, then poll
 * the worker's event fd together with an eventfd that other threads use to wake us.
 *
 * Endpoints ask for peer error handling, so a peer that dies fails its streams instead
 * of taking this process down. UCX 1.13 leaves its shared-memory transports (posix,
 * sysv) out of such endpoints unless their ERROR_HANDLING option is on, so we turn it on
 * in our configuration - unless the user set it in the environment.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "internal.h"

/* One probe: the configuration, the context made from it, and one worker. */
struct fr_ucx_probe {
	ucp_config_t *config;
	ucp_context_h context;
	ucp_worker_h worker;
};

static void fr_ucx_probe_close(struct fr_ucx_probe *probe)
{
	if (probe->worker != NULL) {
		ucp_worker_destroy(probe->worker);
		probe->worker = NULL;
	}
	if (probe->context != NULL) {
		ucp_cleanup(probe->context);
		probe->context = NULL;
	}
	if (probe->config != NULL) {
		ucp_config_release(probe->config);
		probe->config = NULL;
	}
}

static ucs_status_t fr_ucx_probe_open(struct fr_ucx_probe *probe, char *err, size_t errlen)
{
	ucp_params_t params = { 0 };
	ucp_worker_params_t worker_params = { 0 };
	ucs_status_t status;

	/* NULL, NULL: no env prefix beyond UCX_, no config file of our own. */
	status = ucp_config_read(NULL, NULL, &probe->config);
	if (status != UCS_OK) {
		probe->config = NULL;
		fr_seterr(err, errlen, "ucp_config_read: %s (%d)",
			  ucs_status_string(status), (int)status);
		return status;
	}

	params.field_mask = UCP_PARAM_FIELD_FEATURES;
	params.features = UCP_FEATURE_STREAM | UCP_FEATURE_WAKEUP;
	status = ucp_init(&params, probe->config, &probe->context);
	if (status != UCS_OK) {
		probe->context = NULL;
		fr_seterr(err, errlen, "ucp_init(STREAM | WAKEUP): %s (%d)",
			  ucs_status_string(status), (int)status);
		return status;
	}

	worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	worker_params.thread_mode = UCS_THREAD_MODE_SINGLE;
	status = ucp_worker_create(probe->context, &worker_params, &probe->worker);
	if (status != UCS_OK) {
		probe->worker = NULL;
		fr_seterr(err, errlen, "ucp_worker_create(UCS_THREAD_MODE_SINGLE): %s (%d)",
			  ucs_status_string(status), (int)status);
		return status;
	}
	return UCS_OK;
}

FASTRMI_API const char *fastrmi_ucx_version(void)
{
	return ucp_get_version_string();
}

FASTRMI_API int fastrmi_ucx_probe(char *err, size_t errlen)
{
	struct fr_ucx_probe probe = { 0 };
	ucs_status_t status;

	fr_clearerr(err, errlen);
	status = fr_ucx_probe_open(&probe, err, errlen);
	fr_ucx_probe_close(&probe);
	return (int)status;
}

/* ==== the message transport ============================================================ */

#define FR_UCX_MAGIC 'U'
#define FR_UCX_PROGRESS_MAX 64
#define FR_UCX_CLOSE_WAIT_NSEC 200000000ull /* 200 ms for endpoints to close at ctx close */

/* An endpoint being closed (ucp_ep_close_nbx in progress). */
struct fr_ucx_closing {
	struct fr_ucx_closing *next;
	void *req;
};

struct fr_ucx {
	ucp_config_t *config;
	ucp_context_h context;
	ucp_worker_h worker;
	int efd;                   /* the worker's event fd (owned by UCX) */
	int kick_fd;               /* eventfd that wakes the poller */
	struct fr_op *done_head;   /* completed by callbacks, handled in fr_ucx_progress */
	struct fr_op *done_tail;
	struct fr_ucx_closing *closing;
};

static int fr_ucx_fail(char *err, size_t errlen, const char *what, ucs_status_t status)
{
	fr_seterr(err, errlen, "%s: %s (%d)", what, ucs_status_string(status), (int)status);
	return FASTRMI_ERR_PROVIDER;
}

/* Callbacks only queue the operation: stream.c runs after ucp_worker_progress returns,
 * never inside UCX. */
static void fr_ucx_queue(struct fr_op *op, void *request, ucs_status_t status)
{
	struct fr_ucx *ucx = op->ctx->ucx;

	op->ucx_req = request;
	op->status = (int)status;
	op->next_done = NULL;
	if (ucx->done_tail != NULL)
		ucx->done_tail->next_done = op;
	else
		ucx->done_head = op;
	ucx->done_tail = op;
}

static void fr_ucx_send_cb(void *request, ucs_status_t status, void *user_data)
{
	fr_ucx_queue(user_data, request, status);
}

static void fr_ucx_recv_cb(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
			   void *user_data)
{
	struct fr_op *op = user_data;

	op->length = status == UCS_OK ? info->length : 0;
	fr_ucx_queue(op, request, status);
}

static void fr_ucx_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct fastrmi_ctx *ctx = arg;
	struct fr_peer *peer;
	char msg[160];

	/* Looked up, not passed: the peer may be gone already (endpoint closing). */
	for (peer = ctx->peers; peer != NULL; peer = peer->next) {
		if (peer->ep == ep) {
			snprintf(msg, sizeof(msg), "UCX endpoint error: %s (%d)",
				 ucs_status_string(status), (int)status);
			fr_peer_failed(ctx, peer, msg);
		}
	}
}

/* Receives and drops messages no stream will take (sent to streams closed here), so the
 * worker does not complain about them when it is destroyed. */
static void fr_ucx_drop_unexpected(struct fr_ucx *ucx)
{
	ucp_request_param_t param = { 0 };
	ucp_tag_recv_info_t info;
	ucp_tag_message_h msg;
	void *buf, *req;
	int i, spins;

	for (i = 0; i < 4096; i++) {
		ucp_worker_progress(ucx->worker);
		msg = ucp_tag_probe_nb(ucx->worker, 0, 0, 1, &info);
		if (msg == NULL)
			return;
		buf = malloc(info.length > 0 ? info.length : 1);
		if (buf == NULL)
			return;
		req = ucp_tag_msg_recv_nbx(ucx->worker, buf, info.length, msg, &param);
		if (UCS_PTR_IS_PTR(req)) {
			for (spins = 0; spins < 100000 && ucp_request_check_status(req) == UCS_INPROGRESS; spins++)
				ucp_worker_progress(ucx->worker);
			if (ucp_request_check_status(req) == UCS_INPROGRESS) {
				ucp_request_cancel(ucx->worker, req);
				ucp_request_free(req);
				return; /* buf stays with UCX; not expected for small messages */
			}
			ucp_request_free(req);
		}
		free(buf);
	}
}

static void fr_ucx_close(struct fastrmi_ctx *ctx)
{
	struct fr_ucx *ucx = ctx->ucx;
	struct fr_ucx_closing *c;
	struct fr_op *op;
	struct fr_rx *rx;
	uint64_t until;
	struct timespec ts;

	if (ucx == NULL)
		return;
	if (ucx->worker != NULL) {
		/* Orphaned receives: cancel, and let endpoints finish closing, for a while. */
		for (rx = ctx->orphans; rx != NULL; rx = rx->next_orphan)
			if (rx->op.ucx_req != NULL)
				ucp_request_cancel(ucx->worker, rx->op.ucx_req);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		until = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + FR_UCX_CLOSE_WAIT_NSEC;
		for (;;) {
			while (ucp_worker_progress(ucx->worker) != 0)
				;
			for (c = ucx->closing; c != NULL; c = c->next)
				if (c->req != NULL && ucp_request_check_status(c->req) != UCS_INPROGRESS) {
					ucp_request_free(c->req);
					c->req = NULL;
				}
			for (c = ucx->closing; c != NULL && c->req == NULL; c = c->next)
				;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if (c == NULL || (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec > until)
				break;
		}
		while ((op = ucx->done_head) != NULL) {
			ucx->done_head = op->next_done;
			ucp_request_free(op->ucx_req);
			op->ucx_req = NULL;
		}
		fr_ucx_drop_unexpected(ucx);
		/* Still in flight: UCX frees them with the worker. */
		for (rx = ctx->orphans; rx != NULL; rx = rx->next_orphan)
			if (rx->op.ucx_req != NULL)
				ucp_request_free(rx->op.ucx_req);
		for (unsigned i = 0; i < FR_TX_SLOTS; i++)
			if (ctx->tx_pool[i].op.ucx_req != NULL)
				ucp_request_free(ctx->tx_pool[i].op.ucx_req);
	}
	while ((c = ucx->closing) != NULL) {
		ucx->closing = c->next;
		if (c->req != NULL)
			ucp_request_free(c->req);
		free(c);
	}
	if (ucx->worker != NULL)
		ucp_worker_destroy(ucx->worker);
	if (ucx->context != NULL)
		ucp_cleanup(ucx->context);
	if (ucx->config != NULL)
		ucp_config_release(ucx->config);
	if (ucx->kick_fd >= 0)
		close(ucx->kick_fd);
	free(ucx);
	ctx->ucx = NULL;
}

/* Turns a shared-memory transport's ERROR_HANDLING on unless the environment says. */
static void fr_ucx_default_on(ucp_config_t *config, const char *name, const char *tls)
{
	char env[64];

	/* Only when shared memory may be used: UCX warns about options no transport took. */
	if (tls != NULL && strstr(tls, "all") == NULL && strstr(tls, "sm") == NULL && strstr(tls, "shm") == NULL &&
	    strstr(tls, "posix") == NULL && strstr(tls, "sysv") == NULL && strstr(tls, "mm") == NULL)
		return;
	snprintf(env, sizeof(env), "UCX_%s", name);
	if (getenv(env) != NULL || getenv("UCX_POSIX_ERROR_HANDLING") != NULL ||
	    getenv("UCX_SYSV_ERROR_HANDLING") != NULL)
		return;
	/* An older/newer UCX without this option: nothing to turn on. */
	(void)ucp_config_modify(config, name, "y");
}

static int fr_ucx_open(struct fastrmi_ctx *ctx, const char *provider, char *err, size_t errlen)
{
	ucp_params_t params = { 0 };
	ucp_worker_params_t worker_params = { 0 };
	ucp_address_t *address;
	size_t address_len;
	struct fr_ucx *ucx;
	ucs_status_t status;

	const char *tls = getenv("UCX_TLS");
	char chosen[256];

	/* "ucx:shm", "ucx:tcp": the provider is a UCX_TLS list for this context (plus self, for
	 * streams within the process), unless the environment sets UCX_TLS, which wins. */
	if (tls == NULL && provider != NULL && provider[0] != '\0') {
		if ((size_t)snprintf(chosen, sizeof(chosen), "%s,self", provider) >= sizeof(chosen)) {
			fr_seterr(err, errlen, "ucx transports \"%s\" are too long", provider);
			return FASTRMI_ERR_INVALID;
		}
		tls = chosen;
	}
	ucx = calloc(1, sizeof(*ucx));
	if (ucx == NULL) {
		fr_seterr(err, errlen, "out of memory");
		return FASTRMI_ERR_NOMEM;
	}
	ucx->kick_fd = -1;
	ucx->efd = -1;
	ctx->ucx = ucx;

	status = ucp_config_read(NULL, NULL, &ucx->config);
	if (status != UCS_OK) {
		ucx->config = NULL;
		return fr_ucx_fail(err, errlen, "ucp_config_read", status);
	}
	if (tls == chosen) {
		status = ucp_config_modify(ucx->config, "TLS", tls);
		if (status != UCS_OK)
			return fr_ucx_fail(err, errlen, "ucp_config_modify(TLS)", status);
	}
	fr_ucx_default_on(ucx->config, "MM_ERROR_HANDLING", tls);

	params.field_mask = UCP_PARAM_FIELD_FEATURES;
	params.features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP;
	status = ucp_init(&params, ucx->config, &ucx->context);
	if (status != UCS_OK) {
		ucx->context = NULL;
		return fr_ucx_fail(err, errlen, "ucp_init(TAG | WAKEUP)", status);
	}
	/* Every call is made under the context mutex, one thread at a time. */
	worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	worker_params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
	status = ucp_worker_create(ucx->context, &worker_params, &ucx->worker);
	if (status != UCS_OK) {
		ucx->worker = NULL;
		return fr_ucx_fail(err, errlen, "ucp_worker_create(SERIALIZED)", status);
	}
	status = ucp_worker_get_efd(ucx->worker, &ucx->efd);
	if (status != UCS_OK)
		return fr_ucx_fail(err, errlen, "ucp_worker_get_efd", status);
	ucx->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ucx->kick_fd < 0) {
		fr_seterr(err, errlen, "eventfd: %s", strerror(errno));
		return FASTRMI_ERR_PROVIDER;
	}

	status = ucp_worker_get_address(ucx->worker, &address, &address_len);
	if (status != UCS_OK)
		return fr_ucx_fail(err, errlen, "ucp_worker_get_address", status);
	if (address_len + 1 > FASTRMI_ADDRESS_MAX) {
		ucp_worker_release_address(ucx->worker, address);
		fr_seterr(err, errlen, "UCX worker address is %zu bytes, more than %d", address_len,
			  FASTRMI_ADDRESS_MAX - 1);
		return FASTRMI_ERR_PROVIDER;
	}
	ctx->addr[0] = FR_UCX_MAGIC;
	memcpy(ctx->addr + 1, address, address_len);
	ctx->addr_len = address_len + 1;
	ucp_worker_release_address(ucx->worker, address);
	return 0;
}

static int fr_ucx_peer_open(struct fastrmi_ctx *ctx, struct fr_peer *peer, char *err, size_t errlen)
{
	ucp_ep_params_t params = { 0 };
	ucs_status_t status;

	if (peer->addr_len < 2 || peer->addr[0] != FR_UCX_MAGIC) {
		fr_seterr(err, errlen, "not a ucx context address (%zu bytes)", peer->addr_len);
		return FASTRMI_ERR_INVALID;
	}
	params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			    UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.address = (const ucp_address_t *)(peer->addr + 1);
	params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	params.err_handler.cb = fr_ucx_ep_error;
	params.err_handler.arg = ctx;
	status = ucp_ep_create(ctx->ucx->worker, &params, &peer->ep);
	if (status != UCS_OK) {
		peer->ep = NULL;
		return fr_ucx_fail(err, errlen, "ucp_ep_create(peer worker address)", status);
	}
	return 0;
}

static void fr_ucx_peer_close(struct fastrmi_ctx *ctx, struct fr_peer *peer)
{
	ucp_request_param_t param = { 0 };
	struct fr_ucx_closing *c;
	void *req;

	if (peer->ep == NULL)
		return;
	param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
	/* A failed endpoint cannot flush; a live one closes gracefully. */
	param.flags = peer->failed ? UCP_EP_CLOSE_FLAG_FORCE : 0;
	req = ucp_ep_close_nbx(peer->ep, &param);
	peer->ep = NULL;
	if (req == NULL || UCS_PTR_IS_ERR(req))
		return;
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		ucp_request_free(req); /* released by UCX when the close completes */
		return;
	}
	c->req = req;
	c->next = ctx->ucx->closing;
	ctx->ucx->closing = c;
}

static int fr_ucx_post_recv(struct fastrmi_ctx *ctx, struct fr_rx *rx, uint64_t tag,
			    char *err, size_t errlen)
{
	ucp_request_param_t param = { 0 };
	void *req;

	param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
			     UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
	param.cb.recv = fr_ucx_recv_cb;
	param.user_data = &rx->op;
	req = ucp_tag_recv_nbx(ctx->ucx->worker, rx->buf, sizeof(rx->buf), tag, (ucp_tag_t)-1, &param);
	if (UCS_PTR_IS_ERR(req))
		return fr_ucx_fail(err, errlen, "ucp_tag_recv_nbx", UCS_PTR_STATUS(req));
	rx->op.ucx_req = req;
	return 0;
}

static void fr_ucx_cancel_recv(struct fastrmi_ctx *ctx, struct fr_rx *rx)
{
	/* Completes with UCS_ERR_CANCELED in a later progress (nothing if done already). */
	if (rx->op.ucx_req != NULL)
		ucp_request_cancel(ctx->ucx->worker, rx->op.ucx_req);
}

static int fr_ucx_send(struct fastrmi_ctx *ctx, struct fr_peer *peer, uint64_t tag, struct fr_tx *tx,
		       size_t len, char *err, size_t errlen)
{
	ucp_request_param_t param = { 0 };
	void *req;

	(void)ctx;
	if (peer->failed) {
		fr_seterr(err, errlen, "peer failed: %s", peer->fail_msg);
		return FASTRMI_ERR_PROVIDER;
	}
	param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
			     UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
	param.cb.send = fr_ucx_send_cb;
	param.user_data = &tx->op;
	req = ucp_tag_send_nbx(peer->ep, tx->buf, len, tag, &param);
	if (UCS_PTR_IS_ERR(req))
		return fr_ucx_fail(err, errlen, "ucp_tag_send_nbx", UCS_PTR_STATUS(req));
	tx->op.ucx_req = req;
	return 0;
}

static int fr_ucx_progress(struct fastrmi_ctx *ctx, char *err, size_t errlen)
{
	struct fr_ucx *ucx = ctx->ucx;
	struct fr_ucx_closing **cp, *c;
	struct fr_op *op;
	char msg[160];
	int i, count = 0;

	(void)err;
	(void)errlen;
	for (i = 0; i < FR_UCX_PROGRESS_MAX && ucp_worker_progress(ucx->worker) != 0; i++)
		;
	while ((op = ucx->done_head) != NULL) {
		ucx->done_head = op->next_done;
		if (ucx->done_head == NULL)
			ucx->done_tail = NULL;
		ucp_request_free(op->ucx_req);
		op->ucx_req = NULL;
		if (op->status != UCS_OK)
			snprintf(msg, sizeof(msg), "%s: %s (%d)",
				 op->kind == FR_OP_RX ? "UCX tag receive" : "UCX tag send",
				 ucs_status_string((ucs_status_t)op->status), op->status);
		if (op->kind == FR_OP_RX)
			fr_rx_done(ctx, (struct fr_rx *)op, op->status, op->length, msg);
		else
			fr_tx_done(ctx, (struct fr_tx *)op, op->status, msg);
		count++;
	}
	for (cp = &ucx->closing; (c = *cp) != NULL;) {
		if (ucp_request_check_status(c->req) != UCS_INPROGRESS) {
			ucp_request_free(c->req);
			*cp = c->next;
			free(c);
		} else {
			cp = &c->next;
		}
	}
	return count;
}

static int fr_ucx_arm(struct fastrmi_ctx *ctx, char *err, size_t errlen)
{
	ucs_status_t status = ucp_worker_arm(ctx->ucx->worker);

	if (status == UCS_ERR_BUSY)
		return 1;
	if (status != UCS_OK)
		return fr_ucx_fail(err, errlen, "ucp_worker_arm", status);
	/* Completions queued by callbacks during arm are handled before we sleep. */
	return ctx->ucx->done_head != NULL ? 1 : 0;
}

static void fr_ucx_block(struct fastrmi_ctx *ctx, int timeout_ms)
{
	struct pollfd fds[2];
	uint64_t count;

	fds[0].fd = ctx->ucx->efd;
	fds[0].events = POLLIN;
	fds[1].fd = ctx->ucx->kick_fd;
	fds[1].events = POLLIN;
	if (poll(fds, 2, timeout_ms) > 0 && (fds[1].revents & POLLIN))
		(void)!read(ctx->ucx->kick_fd, &count, sizeof(count));
}

static void fr_ucx_disarm(struct fastrmi_ctx *ctx)
{
	(void)ctx;
}

static void fr_ucx_kick(struct fastrmi_ctx *ctx)
{
	uint64_t one = 1;

	(void)!write(ctx->ucx->kick_fd, &one, sizeof(one));
}

const struct fr_backend fr_ucx_backend = {
	.name = "ucx",
	.open = fr_ucx_open,
	.close = fr_ucx_close,
	.peer_open = fr_ucx_peer_open,
	.peer_close = fr_ucx_peer_close,
	.post_recv = fr_ucx_post_recv,
	.cancel_recv = fr_ucx_cancel_recv,
	.send = fr_ucx_send,
	.progress = fr_ucx_progress,
	.arm = fr_ucx_arm,
	.block = fr_ucx_block,
	.disarm = fr_ucx_disarm,
	.kick = fr_ucx_kick,
};
