/*
 * ucx.c - UCX backend: the probe, and the message transport under stream.c.
 *
 * One UCP worker per context and one endpoint per peer worker, shared by all streams to
 * that peer (on shared memory the caller gives each peer a context of its own:
 * fastrmi_ctx_peer_can_block_others); the UCP context under the workers is one per provider
 * (struct fr_ucx_shared); streams are told apart by tag (ucp_tag_send_nbx / ucp_tag_recv_nbx with a
 * full mask). UCX picks the transports (UCX_TLS and every other UCX_* variable apply):
 * shared memory on one host, tcp or RDMA otherwise. Waiting: ucp_worker_arm, then poll
 * the worker's event fd together with an eventfd that other threads use to wake us.
 *
 * Peers are found in two ways, and a peer's bytes reach UCX's address parser in neither
 * unchecked:
 *  - "ucx:shm" (shared memory, one host): by worker address, read from a file of the
 *    user's own folder (userdir.c) that the context's address names by pid and number; a
 *    peer's bytes never reach UCX's parser, only a file of this user's does. The file
 *    starts with the context's doorbell (doorbell.c): a sender rings the slot of the stream
 *    it sent to, and that stream's waiting thread, asleep on the slot, wakes directly,
 *    instead of through UCX's own wake-up (ucp_worker_arm, an event fd, a signal over a
 *    Unix socket), which costs tens of microseconds more per wake-up here. A waiter looks
 *    every FR_UCX_BELL_LOOK_MS all the same, for what UCX does on its own (its wire-up);
 *  - every other provider (tcp, RDMA): by socket address. The context listens
 *    (ucp_listener on every interface, a port of its own); its address is that port, and
 *    a peer is reached at the IP of the connection the two negotiated on. Only an IP the
 *    caller said it expects (fastrmi_ctx_expect_peer) can connect to the listener: the
 *    kernel drops every other one's packets (listen_guard.h), since UCX reads what a
 *    connection sends, and aborts on some of it, before its handler can reject the
 *    connection. The handler rejects one whose IP has expired since.
 *
 * Endpoints ask for peer error handling, so a peer that dies fails its streams instead
 * of taking this process down. UCX 1.13 leaves its shared-memory transports (posix,
 * sysv) out of such endpoints unless their ERROR_HANDLING option is on, so we turn it on
 * in our configuration - unless the user set it in the environment.
 */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ucp/api/ucp.h>
#include <uct/api/uct.h>

#include "internal.h"
#include "listen_guard.h"

/* What every context of ours asks of UCX, the probe's too: tagged messages (a stream's id is
 * the tag) and a wake-up fd to sleep on. */
#define FR_UCX_FEATURES (UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP)
#define FR_UCX_FEATURES_TEXT "TAG | WAKEUP"

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
	params.features = FR_UCX_FEATURES;
	status = ucp_init(&params, probe->config, &probe->context);
	if (status != UCS_OK) {
		probe->context = NULL;
		fr_seterr(err, errlen, "ucp_init(" FR_UCX_FEATURES_TEXT "): %s (%d)",
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

#define FR_UCX_MAGIC 'U'        /* pid, number (u32 each, native order): the worker address is in
				 * the user's folder (userdir.c) as ucx-PID-NUMBER */
#define FR_UCX_KIND "ucx"
#define FR_UCX_FILE_ADDR_LEN 9
#define FR_UCX_SOCKADDR 'S'     /* a port follows (u16, network order); then the peer's IP */
#define FR_UCX_EXPECTED_MAX FR_LISTEN_GUARD_IPS_MAX /* IPs whose connection requests are taken */
#define FR_UCX_EXPECT_NSEC 120000000000ull /* how long one is taken after it was expected */
#define FR_UCX_PROGRESS_MAX 64
#define FR_UCX_LISTENER_POLL_MS 50 /* longest a listening context blocks (see fr_ucx_block) */
#define FR_UCX_CLOSE_WAIT_NSEC 200000000ull /* 200 ms for endpoints to close at ctx close */
#define FR_UCX_BELL_LOOK_MS 1000 /* longest a doorbell waiter sleeps unrung (see the top) */
/* Tag sends up to 8185 bytes go eager-short on shared memory (ucx_info -u t -e, UCX 1.13): whole
 * in the peer's FIFO when the send returns or completes, which is when we ring. Kept below it. */
#define FR_UCX_PEER_RINGS_UPTO 4096

/* An endpoint being closed (ucp_ep_close_nbx in progress). */
struct fr_ucx_closing {
	struct fr_ucx_closing *next;
	void *req;
};

/* An endpoint a peer made to our listener: it carries that peer's messages to us. */
struct fr_ucx_accepted {
	struct fr_ucx_accepted *next;
	ucp_ep_h ep;
	int failed;
};

/* A peer IP whose connection requests are taken until the deadline. */
struct fr_ucx_expected {
	unsigned char ip[16]; /* IPv4 as IPv4-mapped IPv6 */
	uint64_t until_nsec;
};

/*
 * The UCP context that every context of ours with the same provider and UCX_TLS list shares:
 * a context per peer costs a UCP worker of its own (what keeps one peer from blocking others),
 * not a UCP context too; ucp_init was 0.5 of the 0.8 ms CPU that opening one took (UCX 1.13,
 * sysv). Counted: the last context of ours to close cleans it up.
 */
struct fr_ucx_shared {
	struct fr_ucx_shared *next;
	char key[320];             /* provider, then the UCX_TLS list ("" for UCX's own choice) */
	ucp_context_h context;
	unsigned users;
};

static pthread_mutex_t fr_ucx_shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fr_ucx_shared *fr_ucx_shared_list;

struct fr_ucx {
	struct fr_ucx_shared *shared;
	ucp_worker_h worker;
	int efd;                   /* the worker's event fd (owned by UCX) */
	int kick_fd;               /* eventfd that wakes the poller */
	struct fr_op *done_head;   /* completed by callbacks, handled in fr_ucx_progress */
	struct fr_op *done_tail;
	struct fr_ucx_closing *closing;
	ucp_listener_h listener;   /* socket-address mode only */
	int listener_fd;           /* its socket (UCX's), which listen_guard.c filters */
	uint32_t address_file;     /* worker-address mode: ours is ucx-PID-NUMBER (0: none) */
	struct fr_bell *bell;      /* worker-address mode: ours, the start of that file, mapped */
	struct fr_ucx_accepted *accepted;
	struct fr_ucx_expected expected[FR_UCX_EXPECTED_MAX];
	unsigned expected_count;
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
	struct fr_ucx_accepted *a;
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
	/* A peer's endpoint to us failed: closed at the next progress. */
	for (a = ctx->ucx->accepted; a != NULL; a = a->next)
		if (a->ep == ep)
			a->failed = 1;
}

/* Closes an endpoint at once (forced, see fr_ucx_peer_close); it completes in later progress. */
static void fr_ucx_ep_close(struct fr_ucx *ucx, ucp_ep_h ep)
{
	ucp_request_param_t param = { 0 };
	struct fr_ucx_closing *c;
	void *req;

	param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
	param.flags = UCP_EP_CLOSE_FLAG_FORCE;
	req = ucp_ep_close_nbx(ep, &param);
	if (req == NULL)
		return;
	if (UCS_PTR_IS_ERR(req)) {
		fprintf(stderr, "libfastrmi: ucp_ep_close_nbx: %s\n", ucs_status_string(UCS_PTR_STATUS(req)));
		return;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		ucp_request_free(req); /* released by UCX when the close completes */
		return;
	}
	c->req = req;
	c->next = ucx->closing;
	ucx->closing = c;
}

static uint64_t fr_ucx_now_nsec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The IP of a sockaddr as 16 bytes (IPv4 mapped into IPv6); -1 for another family. */
static int fr_ucx_ip_key(const struct sockaddr_storage *sa, unsigned char key[16])
{
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (sa->ss_family == AF_INET) {
		memcpy(key, mapped, sizeof(mapped));
		memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		return 0;
	}
	if (sa->ss_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return -1;
}

static int fr_ucx_is_expected(struct fr_ucx *ucx, const unsigned char key[16])
{
	uint64_t now = fr_ucx_now_nsec();

	for (unsigned i = 0; i < ucx->expected_count; i++)
		if (memcmp(ucx->expected[i].ip, key, 16) == 0 && ucx->expected[i].until_nsec > now)
			return 1;
	return 0;
}

/* A connection request to our listener (called from ucp_worker_progress, lock held). */
static void fr_ucx_conn_request(ucp_conn_request_h request, void *arg)
{
	struct fastrmi_ctx *ctx = arg;
	struct fr_ucx *ucx = ctx->ucx;
	ucp_conn_request_attr_t attr = { .field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR };
	ucp_ep_params_t params = { 0 };
	struct fr_ucx_accepted *a;
	unsigned char key[16];
	char ip[INET6_ADDRSTRLEN] = "?";
	ucs_status_t status;

	status = ucp_conn_request_query(request, &attr);
	if (status != UCS_OK || fr_ucx_ip_key(&attr.client_address, key) != 0 || !fr_ucx_is_expected(ucx, key) ||
	    (a = calloc(1, sizeof(*a))) == NULL) {
		/* Not a peer we negotiated with: nothing it sent is looked at. */
		if (status == UCS_OK && fr_ucx_ip_key(&attr.client_address, key) == 0)
			inet_ntop(AF_INET6, key, ip, sizeof(ip));
		status = ucp_listener_reject(ucx->listener, request);
		if (status != UCS_OK)
			fprintf(stderr, "libfastrmi: ucp_listener_reject(%s): %s\n", ip, ucs_status_string(status));
		return;
	}
	params.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			    UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.conn_request = request;
	params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	params.err_handler.cb = fr_ucx_ep_error;
	params.err_handler.arg = ctx;
	status = ucp_ep_create(ucx->worker, &params, &a->ep);
	if (status != UCS_OK) {
		fprintf(stderr, "libfastrmi: ucp_ep_create(connection request): %s\n", ucs_status_string(status));
		free(a);
		return;
	}
	a->next = ucx->accepted;
	ucx->accepted = a;
}

/* Socket-address mode: a listener on every interface; the context's address is its port. */
static int fr_ucx_listen(struct fastrmi_ctx *ctx, char *err, size_t errlen)
{
	struct fr_ucx *ucx = ctx->ucx;
	struct sockaddr_in6 any6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	struct sockaddr_in any4 = { .sin_family = AF_INET, .sin_addr = { htonl(INADDR_ANY) } };
	ucp_listener_params_t params = { 0 };
	ucp_listener_attr_t attr = { .field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR };
	char guard_err[160];
	ucs_status_t status;
	uint16_t port;

	params.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
	params.conn_handler.cb = fr_ucx_conn_request;
	params.conn_handler.arg = ctx;
	/* IPv4, or IPv6 on a host without it: UCX 1.13 takes no IPv4 connection on an IPv6
	 * listener (it finds no interface for an IPv4-mapped address). */
	params.sockaddr.addr = (const struct sockaddr *)&any4;
	params.sockaddr.addrlen = sizeof(any4);
	status = ucp_listener_create(ucx->worker, &params, &ucx->listener);
	if (status != UCS_OK) {
		params.sockaddr.addr = (const struct sockaddr *)&any6;
		params.sockaddr.addrlen = sizeof(any6);
		status = ucp_listener_create(ucx->worker, &params, &ucx->listener);
	}
	if (status != UCS_OK) {
		ucx->listener = NULL;
		return fr_ucx_fail(err, errlen, "ucp_listener_create(any address, any port)", status);
	}
	status = ucp_listener_query(ucx->listener, &attr);
	if (status != UCS_OK)
		return fr_ucx_fail(err, errlen, "ucp_listener_query", status);
	port = attr.sockaddr.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&attr.sockaddr)->sin6_port
						   : ((struct sockaddr_in *)&attr.sockaddr)->sin_port;
	/* Nobody is let in until a peer is expected (a connection in the microseconds since
	 * ucp_listener_create is UCX's to read). A listener that cannot be guarded fails the
	 * context's open: any host could abort this process through it. */
	if (fr_listen_guard_find(port, &ucx->listener_fd, guard_err, sizeof(guard_err)) != 0 ||
	    fr_listen_guard_admit(ucx->listener_fd, NULL, 0, guard_err, sizeof(guard_err)) != 0) {
		fr_seterr(err, errlen, "cannot guard the UCX listener on port %u: %s", (unsigned)ntohs(port), guard_err);
		return FASTRMI_ERR_PROVIDER;
	}
	ctx->addr[0] = FR_UCX_SOCKADDR;
	memcpy(ctx->addr + 1, &port, 2);
	ctx->addr[3] = attr.sockaddr.ss_family == AF_INET6 ? 6 : 4;
	ctx->addr_len = 4;
	return 0;
}

/* Lets the IPs still expected, and no other, connect to the listener (ctx lock held). */
static int fr_ucx_guard_listener(struct fr_ucx *ucx, uint64_t now, char *err, size_t errlen)
{
	unsigned char ips[FR_UCX_EXPECTED_MAX][16];
	char guard_err[160];
	unsigned count = 0;

	for (unsigned i = 0; i < ucx->expected_count; i++)
		if (ucx->expected[i].until_nsec > now)
			memcpy(ips[count++], ucx->expected[i].ip, 16);
	if (fr_listen_guard_admit(ucx->listener_fd, (const unsigned char (*)[16])ips, count, guard_err,
				  sizeof(guard_err)) != 0) {
		fr_seterr(err, errlen, "cannot let %u expected peers through the UCX listener's guard: %s", count,
			  guard_err);
		return FASTRMI_ERR_PROVIDER;
	}
	return 0;
}

FASTRMI_API int fastrmi_ctx_expect_peer(fastrmi_ctx *ctx, const uint8_t *ip, size_t ip_len, char *err, size_t errlen)
{
	struct sockaddr_storage sa = { 0 };
	struct fr_ucx_expected *slot = NULL;
	struct fr_ucx *ucx;
	unsigned char key[16];
	uint64_t now;
	int ret;

	fr_clearerr(err, errlen);
	if (ctx == NULL || ip == NULL || (ip_len != 4 && ip_len != 16)) {
		fr_seterr(err, errlen, "fastrmi_ctx_expect_peer: bad argument (address of %zu bytes)", ip_len);
		return FASTRMI_ERR_INVALID;
	}
	if (ctx->ucx == NULL || ctx->ucx->listener == NULL)
		return 0; /* no listener: nothing to let in */
	sa.ss_family = ip_len == 4 ? AF_INET : AF_INET6;
	memcpy(ip_len == 4 ? (void *)&((struct sockaddr_in *)&sa)->sin_addr : (void *)&((struct sockaddr_in6 *)&sa)->sin6_addr,
	       ip, ip_len);
	(void)fr_ucx_ip_key(&sa, key);
	pthread_mutex_lock(&ctx->lock);
	ucx = ctx->ucx;
	now = fr_ucx_now_nsec();
	/* The same IP, else a free or expired slot, else the one that expires first. */
	for (unsigned i = 0; i < ucx->expected_count && slot == NULL; i++)
		if (memcmp(ucx->expected[i].ip, key, 16) == 0)
			slot = &ucx->expected[i];
	for (unsigned i = 0; i < ucx->expected_count && slot == NULL; i++)
		if (ucx->expected[i].until_nsec <= now)
			slot = &ucx->expected[i];
	if (slot == NULL && ucx->expected_count < FR_UCX_EXPECTED_MAX)
		slot = &ucx->expected[ucx->expected_count++];
	for (unsigned i = 0; slot == NULL && i < ucx->expected_count; i++)
		if (i == 0 || ucx->expected[i].until_nsec < slot->until_nsec)
			slot = &ucx->expected[i];
	memcpy(slot->ip, key, 16);
	slot->until_nsec = now + FR_UCX_EXPECT_NSEC;
	ret = fr_ucx_guard_listener(ucx, now, err, errlen);
	pthread_mutex_unlock(&ctx->lock);
	return ret;
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

/* Lets go of a shared UCP context; the last user cleans it up. */
static void fr_ucx_shared_put(struct fr_ucx_shared *shared)
{
	struct fr_ucx_shared **at;
	int ret = pthread_mutex_lock(&fr_ucx_shared_lock);

	if (ret != 0) {
		/* Leaked rather than cleaned up under another context's feet. */
		fr_report_errno("pthread_mutex_lock(shared UCP contexts)", ret);
		return;
	}
	if (--shared->users == 0) {
		for (at = &fr_ucx_shared_list; *at != shared; at = &(*at)->next)
			;
		*at = shared->next;
		ucp_cleanup(shared->context);
		free(shared);
	}
	ret = pthread_mutex_unlock(&fr_ucx_shared_lock);
	if (ret != 0)
		fr_report_errno("pthread_mutex_unlock(shared UCP contexts)", ret);
}

static void fr_ucx_close(struct fastrmi_ctx *ctx)
{
	struct fr_ucx *ucx = ctx->ucx;
	struct fr_ucx_accepted *a;
	struct fr_ucx_closing *c;
	struct fr_op *op;
	struct fr_rx *rx;
	uint64_t until;
	struct timespec ts;

	if (ucx == NULL)
		return;
	fr_bell_free(ucx->bell);
	ucx->bell = NULL;
	ctx->bell = NULL;
	if (ucx->address_file != 0)
		fr_userdir_remove(FR_UCX_KIND, ucx->address_file);
	if (ucx->listener != NULL)
		ucp_listener_destroy(ucx->listener);
	while ((a = ucx->accepted) != NULL) {
		ucx->accepted = a->next;
		fr_ucx_ep_close(ucx, a->ep);
		free(a);
	}
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
		for (struct fr_tx *tx = ctx->tx_all; tx != NULL; tx = tx->next_all)
			if (tx->op.ucx_req != NULL)
				ucp_request_free(tx->op.ucx_req);
	}
	while ((c = ucx->closing) != NULL) {
		ucx->closing = c->next;
		if (c->req != NULL)
			ucp_request_free(c->req);
		free(c);
	}
	if (ucx->worker != NULL)
		ucp_worker_destroy(ucx->worker);
	if (ucx->shared != NULL)
		fr_ucx_shared_put(ucx->shared);
	if (ucx->kick_fd >= 0 && close(ucx->kick_fd) != 0)
		fr_report_errno("close(wake-up eventfd)", errno);
	free(ucx);
	ctx->ucx = NULL;
}

/* Whether a UCX_TLS list (NULL: UCX's own choice) may pick a shared-memory transport (mm: posix, sysv). */
static int fr_ucx_may_use_shm(const char *tls)
{
	return tls == NULL || strstr(tls, "all") != NULL || strstr(tls, "sm") != NULL || strstr(tls, "shm") != NULL ||
	       strstr(tls, "posix") != NULL || strstr(tls, "sysv") != NULL || strstr(tls, "mm") != NULL;
}

/*
 * "ucx:shm" asks UCX for sysv alone (plus self), where UCX has it. The "shm" alias makes an
 * interface of each of its members in every context, and our endpoints use sysv alone: UCX
 * prefers it to posix, which does the same, and leaves the rest out of endpoints with peer error
 * handling (cma in 1.13) or has no use for them with every message eager (cma, knem, xpmem move
 * rendezvous data; fr_ucx_eager_only). The posix interface cost every per-peer context about 1.1
 * MB of shared memory (its FIFO, two receive chunks), a descriptor, and half of the worker's
 * creation (1.0-1.2 ms against 0.4). Without sysv: "shm", as UCX chooses.
 */
static pthread_once_t fr_ucx_sysv_once = PTHREAD_ONCE_INIT;
static int fr_ucx_sysv_present;

static void fr_ucx_find_sysv(void)
{
	uct_component_h *components;
	unsigned count;
	ucs_status_t status;

	status = uct_query_components(&components, &count);
	if (status != UCS_OK) {
		fr_report("uct_query_components", ucs_status_string(status));
		return;
	}
	for (unsigned i = 0; i < count; i++) {
		uct_component_attr_t attr = { .field_mask = UCT_COMPONENT_ATTR_FIELD_NAME };

		status = uct_component_query(components[i], &attr);
		if (status != UCS_OK) {
			fr_report("uct_component_query(name)", ucs_status_string(status));
			continue;
		}
		if (strcmp(attr.name, "sysv") == 0)
			fr_ucx_sysv_present = 1;
	}
	uct_release_component_list(components);
}

/* The UCX_TLS list of "ucx:shm" here: "sysv,self", or "shm,self" where UCX has no sysv. */
static const char *fr_ucx_shm_transports(void)
{
	int ret = pthread_once(&fr_ucx_sysv_once, fr_ucx_find_sysv);

	if (ret != 0) {
		fr_report("pthread_once(sysv)", strerror(ret));
		return "shm,self";
	}
	return fr_ucx_sysv_present ? "sysv,self" : "shm,self";
}

/*
 * Sets a shared-memory transport option (MM_name, inherited by posix and sysv) unless the
 * environment sets it for mm, posix or sysv. Only when shared memory may be used: UCX warns
 * about options no transport took; an older/newer UCX without the option keeps its default.
 */
static void fr_ucx_mm_default(ucp_config_t *config, const char *name, const char *value, const char *tls)
{
	static const char *const prefixes[] = { "UCX_MM_", "UCX_POSIX_", "UCX_SYSV_" };
	char option[64];

	if (!fr_ucx_may_use_shm(tls))
		return;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		snprintf(option, sizeof(option), "%s%s", prefixes[i], name);
		if (getenv(option) != NULL)
			return;
	}
	snprintf(option, sizeof(option), "MM_%s", name);
	(void)ucp_config_modify(config, option, value);
}

/*
 * Shared memory: every message of ours goes eager (FR_MSG_MAX at most), unless the environment
 * sets UCX_RNDV_THRESH. UCX 1.13 leaves CMA out of endpoints with peer error handling, so its
 * rendezvous there moves the same fragments through the peer's FIFO as eager does, after a
 * round trip (RTS, RTR) that needs both processes awake: a 64 KiB ping-pong with two busy
 * threads on two cores took 5.7 context switches a round trip instead of 3.3. Not over tcp:
 * there UCX 1.13 reset connections when 64 streams sent 128 KiB each at once eagerly.
 */
static void fr_ucx_eager_only(ucp_config_t *config, const char *provider)
{
	ucs_status_t status;

	if (provider == NULL || strcmp(provider, "shm") != 0 || getenv("UCX_RNDV_THRESH") != NULL)
		return;
	/* Not fatal: without it, large messages go by rendezvous, slower but whole. */
	status = ucp_config_modify(config, "RNDV_THRESH", "inf");
	if (status != UCS_OK)
		fr_report("ucp_config_modify(RNDV_THRESH, inf)", ucs_status_string(status));
}

/*
 * Shared memory: the worker address goes into a file of the user's own folder, and the
 * context's address only names it ('U', pid, number). UCX takes a worker address on trust
 * (it aborts the process on a malformed one), so a peer's is read only from such a file:
 * written by a process of this user, never from the wire.
 */
static int fr_ucx_publish_address(struct fastrmi_ctx *ctx, const void *address, size_t len, char *err,
				  size_t errlen)
{
	uint32_t pid = (uint32_t)getpid(), number;
	void *bell;
	ssize_t written;
	int fd, ret = 0;

	if (len == 0 || len > FASTRMI_ADDRESS_MAX) {
		fr_seterr(err, errlen, "UCX worker address is %zu bytes (1 to %d)", len, FASTRMI_ADDRESS_MAX);
		return FASTRMI_ERR_PROVIDER;
	}
	fd = fr_userdir_create(FR_UCX_KIND, FR_DOORBELL_SIZE + len, &number, err, errlen);
	if (fd < 0)
		return FASTRMI_ERR_PROVIDER;
	written = pwrite(fd, address, len, FR_DOORBELL_SIZE);
	if (written != (ssize_t)len) {
		fr_seterr(err, errlen, "write ucx-%u-%u: %s", pid, number, written < 0 ? strerror(errno) : "short write");
		ret = FASTRMI_ERR_PROVIDER;
	}
	if (ret == 0) {
		bell = mmap(NULL, FR_DOORBELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (bell == MAP_FAILED) {
			fr_seterr(err, errlen, "mmap the doorbell of ucx-%u-%u: %s", pid, number, strerror(errno));
			ret = FASTRMI_ERR_PROVIDER;
		} else if ((ctx->ucx->bell = fr_bell_new(bell, FR_UCX_KIND, pid, number, 1, err, errlen)) == NULL) {
			ret = FASTRMI_ERR_PROVIDER;
		} else {
			ctx->bell = ctx->ucx->bell;
			ctx->bell_look_ms = FR_UCX_BELL_LOOK_MS;
			ctx->peer_rings_upto = FR_UCX_PEER_RINGS_UPTO;
		}
	}
	if (close(fd) != 0 && ret == 0) {
		fr_seterr(err, errlen, "close ucx-%u-%u: %s", pid, number, strerror(errno));
		ret = FASTRMI_ERR_PROVIDER;
	}
	if (ret != 0) {
		fr_bell_free(ctx->ucx->bell);
		ctx->ucx->bell = NULL;
		ctx->bell = NULL;
		fr_userdir_remove(FR_UCX_KIND, number);
		return ret;
	}
	ctx->ucx->address_file = number;
	ctx->addr[0] = FR_UCX_MAGIC;
	memcpy(ctx->addr + 1, &pid, 4);
	memcpy(ctx->addr + 5, &number, 4);
	ctx->addr_len = FR_UCX_FILE_ADDR_LEN;
	return 0;
}

/*
 * The worker address of the peer a 'U' address names, read from its file (malloc'd, *len), and
 * the peer's doorbell at the file's start, mapped into peer->bell.
 */
static void *fr_ucx_read_peer_address(struct fr_peer *peer, size_t *len, char *err, size_t errlen)
{
	uint32_t pid, number;
	size_t size;
	ssize_t got;
	void *address, *bell;
	int fd;

	if (peer->addr_len != FR_UCX_FILE_ADDR_LEN) {
		fr_seterr(err, errlen, "a ucx worker address reference of %zu bytes (%d)", peer->addr_len,
			  FR_UCX_FILE_ADDR_LEN);
		return NULL;
	}
	memcpy(&pid, peer->addr + 1, 4);
	memcpy(&number, peer->addr + 5, 4);
	if (pid == 0 || number == 0) {
		fr_seterr(err, errlen, "a ucx worker address reference to pid %u, number %u", pid, number);
		return NULL;
	}
	fd = fr_userdir_open_peer(FR_UCX_KIND, pid, number, O_RDWR, FR_DOORBELL_SIZE + 1,
				  FR_DOORBELL_SIZE + FASTRMI_ADDRESS_MAX, &size, err, errlen);
	if (fd < 0)
		return NULL;
	size -= FR_DOORBELL_SIZE;
	address = malloc(size);
	if (address == NULL) {
		fr_seterr(err, errlen, "out of memory for a ucx worker address");
	} else if ((got = pread(fd, address, size, FR_DOORBELL_SIZE)) != (ssize_t)size) {
		fr_seterr(err, errlen, "read the peer's ucx-%u-%u: %s", pid, number,
			  got < 0 ? strerror(errno) : "short read");
		free(address);
		address = NULL;
	} else if ((bell = mmap(NULL, FR_DOORBELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		fr_seterr(err, errlen, "mmap the doorbell of the peer's ucx-%u-%u: %s", pid, number, strerror(errno));
		free(address);
		address = NULL;
	} else if ((peer->bell = fr_bell_new(bell, FR_UCX_KIND, pid, number, 0, err, errlen)) == NULL) {
		free(address);
		address = NULL;
	}
	if (close(fd) != 0)
		fprintf(stderr, "libfastrmi: close the peer's ucx-%u-%u: %s\n", pid, number, strerror(errno));
	*len = size;
	return address;
}

/* Makes a UCP context for a provider and UCX_TLS list (NULL: UCX's own choice) from our configuration. */
static int fr_ucx_shared_open(struct fr_ucx_shared *shared, const char *provider, const char *tls, char *err,
			      size_t errlen)
{
	ucp_params_t params = { 0 };
	ucp_config_t *config;
	ucs_status_t status;

	status = ucp_config_read(NULL, NULL, &config);
	if (status != UCS_OK)
		return fr_ucx_fail(err, errlen, "ucp_config_read", status);
	if (tls != NULL && getenv("UCX_TLS") == NULL) {
		status = ucp_config_modify(config, "TLS", tls);
		if (status != UCS_OK) {
			ucp_config_release(config);
			return fr_ucx_fail(err, errlen, "ucp_config_modify(TLS)", status);
		}
	}
	fr_ucx_mm_default(config, "ERROR_HANDLING", "y", tls);
	/* Receive buffers 64 at a time, not 512 (4 MiB a worker): a worker per peer (see
	 * fastrmi_ctx_peer_can_block_others) should cost little; the pool still grows as it must. */
	fr_ucx_mm_default(config, "RX_BUFS_GROW", "64", tls);
	fr_ucx_eager_only(config, provider);

	/* Workers of the shared context are made and used by many threads at once. */
	params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
	params.features = FR_UCX_FEATURES;
	params.mt_workers_shared = 1;
	status = ucp_init(&params, config, &shared->context);
	/* The context keeps what it read: the configuration is not needed after ucp_init. */
	ucp_config_release(config);
	if (status != UCS_OK)
		return fr_ucx_fail(err, errlen, "ucp_init(" FR_UCX_FEATURES_TEXT ", shared by workers)", status);
	return FASTRMI_OK;
}

/* The UCP context of this provider and UCX_TLS list, made on first use, counted. */
static int fr_ucx_shared_get(const char *provider, const char *tls, struct fr_ucx_shared **out, char *err,
			     size_t errlen)
{
	struct fr_ucx_shared *shared;
	char key[sizeof(shared->key)];
	int n = snprintf(key, sizeof(key), "%s|%s", provider != NULL ? provider : "", tls != NULL ? tls : "");
	int ret, unlocked;

	if (n < 0 || (size_t)n >= sizeof(key)) {
		fr_seterr(err, errlen, "ucx provider \"%s\" with its transports is too long", provider);
		return FASTRMI_ERR_INVALID;
	}
	ret = pthread_mutex_lock(&fr_ucx_shared_lock);
	if (ret != 0) {
		fr_seterr(err, errlen, "pthread_mutex_lock(shared UCP contexts): %s", strerror(ret));
		return FASTRMI_ERR_PROVIDER;
	}
	for (shared = fr_ucx_shared_list; shared != NULL && strcmp(shared->key, key) != 0; shared = shared->next)
		;
	if (shared == NULL) {
		shared = calloc(1, sizeof(*shared));
		if (shared == NULL) {
			fr_seterr(err, errlen, "out of memory");
			ret = FASTRMI_ERR_NOMEM;
		} else if ((ret = fr_ucx_shared_open(shared, provider, tls, err, errlen)) != FASTRMI_OK) {
			free(shared);
			shared = NULL;
		} else {
			memcpy(shared->key, key, (size_t)n + 1);
			shared->next = fr_ucx_shared_list;
			fr_ucx_shared_list = shared;
		}
	}
	if (shared != NULL)
		shared->users++;
	*out = shared;
	unlocked = pthread_mutex_unlock(&fr_ucx_shared_lock);
	if (unlocked != 0)
		fr_report_errno("pthread_mutex_unlock(shared UCP contexts)", unlocked);
	return ret;
}

static int fr_ucx_open(struct fastrmi_ctx *ctx, const char *provider, char *err, size_t errlen)
{
	ucp_worker_params_t worker_params = { 0 };
	ucp_address_t *address;
	size_t address_len;
	struct fr_ucx *ucx;
	ucs_status_t status;
	int ret;

	const char *tls = getenv("UCX_TLS");
	char chosen[256];

	/* "ucx:shm" (fr_ucx_shm_transports), "ucx:tcp": the provider is a UCX_TLS list for this
	 * context (plus self, for streams within the process), unless the environment sets
	 * UCX_TLS, which wins. */
	if (tls == NULL && provider != NULL && provider[0] != '\0') {
		int n = strcmp(provider, "shm") == 0 ? snprintf(chosen, sizeof(chosen), "%s", fr_ucx_shm_transports())
						      : snprintf(chosen, sizeof(chosen), "%s,self", provider);

		if (n < 0 || (size_t)n >= sizeof(chosen)) {
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
	ucx->listener_fd = -1;
	ctx->ucx = ucx;

	ret = fr_ucx_shared_get(provider, tls, &ucx->shared, err, errlen);
	if (ret != FASTRMI_OK)
		return ret;
	ctx->peer_can_block_others = fr_ucx_may_use_shm(tls);
	ctx->recv_in_pieces = 1; /* any datatype, any protocol (fr_ucx_post_recv) */
	/* Every call is made under the context mutex, one thread at a time. */
	worker_params.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	worker_params.thread_mode = UCS_THREAD_MODE_SERIALIZED;
	status = ucp_worker_create(ucx->shared->context, &worker_params, &ucx->worker);
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

	/* Shared memory: peers by worker address; anything else: by socket address. */
	if (provider == NULL || strcmp(provider, "shm") != 0)
		return fr_ucx_listen(ctx, err, errlen);
	status = ucp_worker_get_address(ucx->worker, &address, &address_len);
	if (status != UCS_OK)
		return fr_ucx_fail(err, errlen, "ucp_worker_get_address", status);
	ret = fr_ucx_publish_address(ctx, address, address_len, err, errlen);
	ucp_worker_release_address(ucx->worker, address);
	return ret;
}

/* 'S', port, IP version (4 or 6), then an address of it: the peer's listener, as a sockaddr. */
static int fr_ucx_peer_sockaddr(const struct fr_peer *peer, struct sockaddr_storage *sa, socklen_t *len)
{
	const unsigned char *addr = peer->addr;

	memset(sa, 0, sizeof(*sa));
	if (peer->addr_len == 4 + 4 && addr[3] == 4) {
		struct sockaddr_in *in = (struct sockaddr_in *)sa;

		in->sin_family = AF_INET;
		memcpy(&in->sin_port, addr + 1, 2);
		memcpy(&in->sin_addr, addr + 4, 4);
		*len = sizeof(*in);
		return in->sin_port != 0 && in->sin_addr.s_addr != htonl(INADDR_ANY) ? 0 : -1;
	}
	if (peer->addr_len == 4 + 16 && addr[3] == 6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;

		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_port, addr + 1, 2);
		memcpy(&in6->sin6_addr, addr + 4, 16);
		*len = sizeof(*in6);
		return in6->sin6_port != 0 && !IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) ? 0 : -1;
	}
	return -1;
}

static void fr_ucx_unmap_peer_bell(struct fr_peer *peer)
{
	fr_bell_free(peer->bell);
	peer->bell = NULL;
}

static int fr_ucx_peer_open(struct fastrmi_ctx *ctx, struct fr_peer *peer, char *err, size_t errlen)
{
	ucp_ep_params_t params = { 0 };
	struct sockaddr_storage sa;
	socklen_t sa_len;
	ucs_status_t status;
	void *worker_address = NULL;
	size_t worker_address_len;
	int by_sockaddr = ctx->ucx->listener != NULL;

	if (peer->addr_len < 2 || peer->addr[0] != (by_sockaddr ? FR_UCX_SOCKADDR : FR_UCX_MAGIC)) {
		fr_seterr(err, errlen, "not a ucx %s address (%zu bytes)", by_sockaddr ? "socket" : "worker",
			  peer->addr_len);
		return FASTRMI_ERR_INVALID;
	}
	params.field_mask = UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
	params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	params.err_handler.cb = fr_ucx_ep_error;
	params.err_handler.arg = ctx;
	if (by_sockaddr) {
		if (fr_ucx_peer_sockaddr(peer, &sa, &sa_len) != 0) {
			fr_seterr(err, errlen, "malformed ucx socket address (%zu bytes)", peer->addr_len);
			return FASTRMI_ERR_INVALID;
		}
		params.field_mask |= UCP_EP_PARAM_FIELD_SOCK_ADDR | UCP_EP_PARAM_FIELD_FLAGS;
		params.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
		params.sockaddr.addr = (const struct sockaddr *)&sa;
		params.sockaddr.addrlen = sa_len;
	} else {
		worker_address = fr_ucx_read_peer_address(peer, &worker_address_len, err, errlen);
		if (worker_address == NULL)
			return FASTRMI_ERR_INVALID;
		params.field_mask |= UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
		params.address = worker_address;
	}
	status = ucp_ep_create(ctx->ucx->worker, &params, &peer->ep);
	free(worker_address);
	if (status != UCS_OK) {
		peer->ep = NULL;
		fr_ucx_unmap_peer_bell(peer);
		return fr_ucx_fail(err, errlen, by_sockaddr ? "ucp_ep_create(peer socket address)"
							    : "ucp_ep_create(peer worker address)", status);
	}
	return 0;
}

static void fr_ucx_peer_close(struct fastrmi_ctx *ctx, struct fr_peer *peer)
{
	fr_ucx_unmap_peer_bell(peer);
	if (peer->ep == NULL)
		return;
	/* Forced: a peer is closed only when none of our messages to it is in flight, and a
	 * graceful close waits for the peer, which may never answer (a peer that left, or an
	 * endpoint that never connected); UCX aborts the process when a worker is destroyed
	 * with such a close still pending. */
	fr_ucx_ep_close(ctx->ucx, peer->ep);
	peer->ep = NULL;
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
	if (rx->in_window) {
		/* UCX reads the pieces until the receive completes: they live in rx. */
		for (int i = 0; i < rx->pieces; i++)
			rx->ucx_piece[i] = (ucp_dt_iov_t){ .buffer = rx->piece[i].iov_base,
							   .length = rx->piece[i].iov_len };
		param.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
		param.datatype = ucp_dt_make_iov();
		req = ucp_tag_recv_nbx(ctx->ucx->worker, rx->ucx_piece, (size_t)rx->pieces, tag, (ucp_tag_t)-1,
				       &param);
	} else {
		req = ucp_tag_recv_nbx(ctx->ucx->worker, rx->buf, sizeof(rx->buf), tag, (ucp_tag_t)-1, &param);
	}
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
	/* Without UCP_OP_ATTR_FLAG_NO_IMM_CMPL: a send UCX finished at once (eager-short on shared
	 * memory: the message is in the peer's FIFO) has no completion to wait for, and the buffer is
	 * free again, as after fi_tinject. */
	param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	param.cb.send = fr_ucx_send_cb;
	param.user_data = &tx->op;
	req = ucp_tag_send_nbx(peer->ep, tx->buf, len, tag, &param);
	if (UCS_PTR_IS_ERR(req))
		return fr_ucx_fail(err, errlen, "ucp_tag_send_nbx", UCS_PTR_STATUS(req));
	if (req == NULL)
		return 2; /* done already (UCS_OK); no callback comes */
	tx->op.ucx_req = req;
	return 0;
}

static int fr_ucx_progress(struct fastrmi_ctx *ctx, char *err, size_t errlen)
{
	struct fr_ucx *ucx = ctx->ucx;
	struct fr_ucx_accepted **ap, *a;
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
	/* More progress than completions: UCX took fragments of a message, or worked on one of its own. */
	if (i > count)
		ctx->protocol_work++;
	for (ap = &ucx->accepted; (a = *ap) != NULL;) {
		if (a->failed) {
			*ap = a->next;
			fr_ucx_ep_close(ucx, a->ep);
			free(a);
		} else {
			ap = &a->next;
		}
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

	/* A connection request to our listener does not wake the worker's event fd (UCX 1.13's
	 * socket-address CM runs it from its async thread into the next progress): look for one
	 * every so often, or a peer's connect waits for our next call, and may time out. */
	if (ctx->ucx->listener != NULL && (timeout_ms < 0 || timeout_ms > FR_UCX_LISTENER_POLL_MS))
		timeout_ms = FR_UCX_LISTENER_POLL_MS;
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
	/* Tag sends beyond 8 KiB go in fragments on shared memory (ucx_info -u t -e, UCX 1.13;
	 * fr_ucx_eager_only), which may wait at the sender for room in the peer's FIFO (64 of them
	 * by default), and rendezvous elsewhere. */
	.sender_waits_from = 8192,
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
