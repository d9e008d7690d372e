/*
 * ofi.c - libfabric backend: the probe, and the message transport under stream.c.
 *
 * One RDM endpoint per context, with one address vector and one completion queue for
 * sends and receives; streams are told apart by tag (fi_tsend / fi_trecv). Waiting:
 *  - providers with an fd wait object (tcp;ofi_rxm, verbs, ...): fi_trywait, then poll
 *    the CQ's fd (FI_GETWAIT) together with an eventfd that other threads use to wake
 *    the poller;
 *  - providers without one (shm offers only FI_WAIT_NONE / FI_WAIT_YIELD, and
 *    fi_cq_sread would spin): a doorbell of our own (doorbell.c), futex words in a small
 *    file of the user's own directory /dev/shm/fastrmi-UID (0700, checked: owned by us,
 *    open to no one else), one per stream: a sender rings the slot of the stream it sent
 *    to, which wakes the thread waiting on that stream directly. A peer's doorbell is found
 *    there by the numbers in its address (its pid and the doorbell's number), never by a
 *    path or an fd the peer names, and only a file of our user is mapped. A process's
 *    doorbells are unlinked at its exit; those of a process that was killed are removed by
 *    the next one to make a doorbell.
 *
 * A peer's address is checked field by field before libfabric sees it: a sockaddr of the
 * provider's family with a port, or shm's "fi_shm://PID:N:N" of the pid in its header.
 * Providers with other address formats are not opened.
 */
#define _GNU_SOURCE /* strdup */

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "internal.h"
#include "libfabric.h"

/*
 * The libfabric API version we ask for. 1.9 is older than anything we rely on, so
 * the same libfastrmi.so works with any libfabric >= 1.9 found on a host (it opens
 * libfabric.so.1, whose ABI is stable across 1.x: libfabric.c).
 */
#define FR_OFI_API_VERSION FI_VERSION(1, 9)

/* One probe: the hints we pass to fi_getinfo and the list it returns. */
struct fr_ofi_probe {
	struct fi_info *hints;
	struct fi_info *info;
};

static void fr_ofi_probe_close(struct fr_ofi_probe *probe)
{
	/* fi_freeinfo frees the whole list, including hints->fabric_attr->prov_name. */
	if (probe->info != NULL) {
		fr_fi.freeinfo(probe->info);
		probe->info = NULL;
	}
	if (probe->hints != NULL) {
		fr_fi.freeinfo(probe->hints);
		probe->hints = NULL;
	}
}

/*
 * The hints of every fi_getinfo of ours, the probe's and a context's alike, so that a probe
 * answers for what a context really asks: tagged messages on a reliable datagram endpoint, in
 * the order sent (a stream's messages), one thread at a time (the context's mutex). Returns
 * 0, or -FI_ENOMEM (hints left for fi_freeinfo).
 */
static int fr_ofi_fill_hints(struct fi_info *hints, const char *provider)
{
	hints->caps = FI_TAGGED;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->ep_attr->type = FI_EP_RDM;
	hints->tx_attr->msg_order = FI_ORDER_SAS;
	hints->rx_attr->msg_order = FI_ORDER_SAS;
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	hints->fabric_attr->prov_name = strdup(provider);
	return hints->fabric_attr->prov_name == NULL ? -FI_ENOMEM : 0;
}

/* What fr_ofi_fill_hints asks, for messages. */
#define FR_OFI_HINTS_TEXT "FI_EP_RDM, FI_TAGGED, FI_ORDER_SAS, FI_THREAD_DOMAIN"

/*
 * The provider name goes to libfabric unchanged, and libfabric's own matching
 * decides. This is what `fi_info -p NAME -t FI_EP_RDM` does, so the probe answers
 * as that command does:
 *  - a core provider with native RDM endpoints matches itself ("shm" -> "shm");
 *  - a core provider that has only connected (FI_EP_MSG) endpoints matches when
 *    libfabric layers a utility provider over it: on libfabric 1.17, "tcp" is
 *    reported as "tcp;ofi_rxm" (core tcp, RDM made by ofi_rxm). A user asking for
 *    "tcp" means exactly that, so it counts as found;
 *  - the layered name itself ("tcp;ofi_rxm", "verbs;ofi_rxm") matches as well.
 */
static int fr_ofi_probe_open(struct fr_ofi_probe *probe, const char *provider,
			     char *err, size_t errlen)
{
	int ret = fr_libfabric_load(err, errlen);

	if (ret != 0)
		return ret;
	probe->hints = fr_fi.dupinfo(NULL); /* fi_allocinfo */
	if (probe->hints == NULL) {
		ret = -FI_ENOMEM;
		fr_seterr(err, errlen, "fi_allocinfo: %s (%d)", fr_fi_strerror(-ret), ret);
		return ret;
	}

	ret = fr_ofi_fill_hints(probe->hints, provider);
	if (ret != 0) {
		fr_seterr(err, errlen, "strdup(provider): %s (%d)", fr_fi_strerror(-ret), ret);
		return ret;
	}

	ret = fr_fi.getinfo(FR_OFI_API_VERSION, NULL, NULL, 0, probe->hints, &probe->info);
	if (ret != 0) {
		fr_seterr(err, errlen, "fi_getinfo(provider \"%s\", " FR_OFI_HINTS_TEXT "): %s (%d)",
			  provider, fr_fi_strerror(-ret), ret);
		return ret;
	}
	if (probe->info == NULL) {
		/* Not expected from libfabric, but "success with no match" is not found. */
		ret = -FI_ENODATA;
		fr_seterr(err, errlen, "fi_getinfo(provider \"%s\", " FR_OFI_HINTS_TEXT "): %s (%d)",
			  provider, fr_fi_strerror(-ret), ret);
		return ret;
	}
	return 0;
}

FASTRMI_API uint32_t fastrmi_ofi_version(void)
{
	return fr_libfabric_load(NULL, 0) == 0 ? fr_fi.version() : 0;
}

FASTRMI_API int fastrmi_ofi_probe(const char *provider, char *err, size_t errlen)
{
	struct fr_ofi_probe probe = { 0 };
	int ret;

	if (provider == NULL || provider[0] == '\0') {
		ret = -FI_EINVAL;
		fr_seterr(err, errlen, "libfabric provider name is %s: %s (%d)",
			  provider == NULL ? "NULL" : "empty", fr_fi_strerror(-ret), ret);
		return ret;
	}

	fr_clearerr(err, errlen);
	ret = fr_ofi_probe_open(&probe, provider, err, errlen);
	fr_ofi_probe_close(&probe);
	return ret;
}

/* ==== the message transport ============================================================ */

/* Address: magic, wait mode, pid and number of the doorbell (0 without one), name length,
 * then the endpoint name. */
#define FR_OFI_MAGIC 'O'
#define FR_OFI_ADDR_HDR 12
#define FR_OFI_CQ_BATCH 16
#define FR_OFI_PROGRESS_MAX 256

enum fr_ofi_wait { FR_OFI_WAIT_FD = 0, FR_OFI_WAIT_DOORBELL = 1 };

struct fr_ofi {
	struct fi_info *hints;
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	enum fr_ofi_wait wait;
	int cq_fd;                 /* FD mode: the CQ's wait fd (owned by libfabric) */
	int kick_fd;               /* FD mode: eventfd that wakes the poller */
	uint32_t bell_number;      /* doorbell mode: ours is bell-PID-NUMBER */
	struct fr_bell *bell;      /* doorbell mode: ours, mapped */
	int region_fd;             /* shm: our region, flocked shared while the context lives (-1: none) */
	size_t inject_size;
};

static int fr_ofi_fail(char *err, size_t errlen, const char *what, int ret)
{
	fr_seterr(err, errlen, "%s: %s (%d)", what, fr_fi_strerror(ret < 0 ? -ret : ret), ret);
	return FASTRMI_ERR_PROVIDER;
}

/* ---- doorbell files (in the user's own folder, see userdir.c) ------------------------ */

#define FR_BELL_KIND "bell"

static void *fr_bell_map(int fd, uint32_t pid, uint32_t number, char *err, size_t errlen)
{
	void *mem = mmap(NULL, FR_DOORBELL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (mem == MAP_FAILED) {
		fr_seterr(err, errlen, "mmap doorbell bell-%u-%u: %s", pid, number, strerror(errno));
		return NULL;
	}
	return mem;
}

static int fr_doorbell_create(struct fr_ofi *ofi, char *err, size_t errlen)
{
	uint32_t pid = (uint32_t)getpid();
	void *page;
	int fd, ret = FASTRMI_ERR_PROVIDER;

	fd = fr_userdir_create(FR_BELL_KIND, FR_DOORBELL_SIZE, &ofi->bell_number, err, errlen);
	if (fd < 0)
		return FASTRMI_ERR_PROVIDER;
	if ((page = fr_bell_map(fd, pid, ofi->bell_number, err, errlen)) != NULL &&
	    (ofi->bell = fr_bell_new(page, FR_BELL_KIND, pid, ofi->bell_number, 1, err, errlen)) != NULL)
		ret = 0;
	if (close(fd) != 0 && ret == 0) {
		fr_seterr(err, errlen, "close doorbell bell-%u-%u: %s", pid, ofi->bell_number, strerror(errno));
		ret = FASTRMI_ERR_PROVIDER;
	}
	if (ret != 0) {
		fr_bell_free(ofi->bell);
		ofi->bell = NULL;
		fr_userdir_remove(FR_BELL_KIND, ofi->bell_number);
	}
	return ret;
}

/* Maps the peer's doorbell, found by its pid and number in this user's folder only. */
static int fr_doorbell_open_peer(struct fr_peer *peer, uint32_t pid, uint32_t number, char *err, size_t errlen)
{
	size_t size;
	void *page;
	int fd, ret = FASTRMI_ERR_PROVIDER;

	fd = fr_userdir_open_peer(FR_BELL_KIND, pid, number, O_RDWR, FR_DOORBELL_SIZE, FR_DOORBELL_SIZE, &size,
				  err, errlen);
	if (fd < 0)
		return FASTRMI_ERR_PROVIDER;
	if ((page = fr_bell_map(fd, pid, number, err, errlen)) != NULL &&
	    (peer->bell = fr_bell_new(page, FR_BELL_KIND, pid, number, 0, err, errlen)) != NULL)
		ret = 0;
	if (close(fd) != 0)
		fprintf(stderr, "libfastrmi: close peer doorbell bell-%u-%u: %s\n", pid, number, strerror(errno));
	return ret;
}

/* Unmaps and removes our doorbell and its pipes (peers that mapped it keep their mapping). */
static void fr_doorbell_close(struct fr_ofi *ofi)
{
	fr_bell_free(ofi->bell);
	ofi->bell = NULL;
	fr_userdir_remove(FR_BELL_KIND, ofi->bell_number);
}

/* ---- peer addresses ------------------------------------------------------------------ */

/*
 * Our shm regions' names: "fastrmi-nsNS-PID-R" (the pid namespace, the pid and the process's random
 * number, userdir.c), to which libfabric adds ":UID:N" (uid, endpoint). Named so, a region never
 * clashes with one of a process of the same pid in another pid namespace or of a killed process
 * whose pid was reused, and a sweep knows it for ours (libfabric's own "PID:N:N" could be anyone's).
 */
#define FR_SHM_SCHEME "fi_shm://"

static int fr_shm_region_prefix(char *buf, size_t size, uint32_t pid)
{
	return snprintf(buf, size, "fastrmi-ns%llu-%u-", (unsigned long long)fr_pid_namespace(), pid);
}

/* "R:N:N" after a region's prefix: three numbers, two colons. */
static int fr_is_region_suffix(const char *s)
{
	int colons = 0;

	if (!isdigit((unsigned char)*s))
		return 0;
	for (; *s != '\0'; s++) {
		if (*s == ':') {
			if (!isdigit((unsigned char)s[1]))
				return 0;
			colons++;
		} else if (!isdigit((unsigned char)*s)) {
			return 0;
		}
	}
	return colons == 2;
}

/* One of our regions' names in /dev/shm, of any process (a sweep's question). */
static int fr_is_fastrmi_region(const char *name)
{
	unsigned long long ns;
	unsigned pid;
	int end = 0;

	return sscanf(name, "fastrmi-ns%llu-%u-%n", &ns, &pid, &end) == 2 && end > 0 && fr_is_region_suffix(name + end);
}

/* "fi_shm://fastrmi-nsNS-PID-R:N:N" with its NUL: our pid namespace, and PID the one in the address's header. */
static int fr_is_shm_name(const unsigned char *name, size_t len, uint32_t pid)
{
	char expected[64];
	size_t prefix_len;

	if (len < sizeof(FR_SHM_SCHEME) || name[len - 1] != '\0' || memchr(name, '\0', len - 1) != NULL ||
	    memcmp(name, FR_SHM_SCHEME, sizeof(FR_SHM_SCHEME) - 1) != 0)
		return 0;
	name += sizeof(FR_SHM_SCHEME) - 1;
	prefix_len = (size_t)fr_shm_region_prefix(expected, sizeof(expected), pid);
	return strncmp((const char *)name, expected, prefix_len) == 0 && fr_is_region_suffix((const char *)name + prefix_len);
}

/* A sockaddr_in / sockaddr_in6 of exactly its size, of its family, with a port. */
static int fr_is_sockaddr(const unsigned char *name, size_t len, uint32_t format)
{
	struct sockaddr_in in;
	struct sockaddr_in6 in6;

	if ((format == FI_SOCKADDR_IN || format == FI_SOCKADDR) && len == sizeof(in)) {
		memcpy(&in, name, sizeof(in));
		return in.sin_family == AF_INET && in.sin_port != 0 && in.sin_addr.s_addr != htonl(INADDR_ANY);
	}
	if ((format == FI_SOCKADDR_IN6 || format == FI_SOCKADDR) && len == sizeof(in6)) {
		memcpy(&in6, name, sizeof(in6));
		return in6.sin6_family == AF_INET6 && in6.sin6_port != 0 && !IN6_IS_ADDR_UNSPECIFIED(&in6.sin6_addr);
	}
	return 0;
}

/* Reports a failed libfabric teardown call (a negative fi_errno) by name: no caller to return it to. */
static void fr_ofi_report(const char *call, int ret)
{
	char why[160];

	if (ret != 0) {
		snprintf(why, sizeof(why), "%s (%d)", fr_fi_strerror(-ret), ret);
		fr_report(call, why);
	}
}

/* Closes one libfabric object, reporting a failure by the object's name, as fabtests'
 * FT_CLOSE_FID does. */
static void fr_ofi_close_fid(struct fid *fid, const char *what)
{
	fr_ofi_report(what, fi_close(fid));
}

static void fr_ofi_close(struct fastrmi_ctx *ctx)
{
	struct fr_ofi *ofi = ctx->ofi;

	if (ofi == NULL)
		return;
	/* Endpoint first: after it is closed no buffer of ours is written any more. */
	if (ofi->ep != NULL)
		fr_ofi_close_fid(&ofi->ep->fid, "fi_close(endpoint)");
	if (ofi->av != NULL)
		fr_ofi_close_fid(&ofi->av->fid, "fi_close(address vector)");
	if (ofi->cq != NULL)
		fr_ofi_close_fid(&ofi->cq->fid, "fi_close(completion queue)");
	/* ofi_rxm (libfabric 1.17) may still hold a connection to a peer that closed its stream
	 * with our data unread: its domain and fabric then report -FI_EBUSY here (test_stream's
	 * reset case), and stay allocated. Reported; nothing more can be done from outside. */
	if (ofi->domain != NULL)
		fr_ofi_close_fid(&ofi->domain->fid, "fi_close(domain)");
	if (ofi->fabric != NULL)
		fr_ofi_close_fid(&ofi->fabric->fid, "fi_close(fabric)");
	/* After the endpoint, which unlinked the region: no sweep can take a region still in use. */
	if (ofi->region_fd >= 0 && close(ofi->region_fd) != 0)
		fprintf(stderr, "libfastrmi: close our shm region: %s\n", strerror(errno));
	if (ofi->info != NULL)
		fr_fi.freeinfo(ofi->info);
	if (ofi->hints != NULL)
		fr_fi.freeinfo(ofi->hints);
	if (ofi->kick_fd >= 0 && close(ofi->kick_fd) != 0)
		fr_report_errno("close(wake-up eventfd)", errno);
	if (ofi->bell != NULL)
		fr_doorbell_close(ofi);
	free(ofi);
	ctx->ofi = NULL;
}

static int fr_ofi_open_cq(struct fr_ofi *ofi, char *err, size_t errlen)
{
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_FD };
	int ret;

	ret = fi_cq_open(ofi->domain, &attr, &ofi->cq, NULL);
	if (ret == 0) {
		ret = fi_control(&ofi->cq->fid, FI_GETWAIT, &ofi->cq_fd);
		if (ret != 0)
			return fr_ofi_fail(err, errlen, "fi_control(cq, FI_GETWAIT)", ret);
		ofi->wait = FR_OFI_WAIT_FD;
		return 0;
	}
	/* No fd to block on (shm): poll the CQ and block on our doorbell instead. */
	ofi->cq = NULL;
	attr.wait_obj = FI_WAIT_NONE;
	ret = fi_cq_open(ofi->domain, &attr, &ofi->cq, NULL);
	if (ret != 0) {
		ofi->cq = NULL;
		return fr_ofi_fail(err, errlen, "fi_cq_open(FI_CQ_FORMAT_TAGGED)", ret);
	}
	ofi->wait = FR_OFI_WAIT_DOORBELL;
	return 0;
}

/*
 * libfabric's shm unlinks a region only in fi_close, which a JVM never reaches: it exits with its
 * contexts open (other threads may still use them). So at exit this process's regions are
 * unlinked; peers that mapped a region keep their mapping. Without it every JVM would leave 16 MiB
 * behind in /dev/shm.
 */
static void fr_shm_unlink_own_regions(void)
{
	char prefix[64];
	size_t prefix_len;
	struct dirent *entry;
	DIR *dir;

	prefix_len = (size_t)fr_shm_region_prefix(prefix, sizeof(prefix), (uint32_t)getpid());
	prefix_len += (size_t)snprintf(prefix + prefix_len, sizeof(prefix) - prefix_len, "%u:", fr_process_random());
	dir = opendir("/dev/shm");
	if (dir == NULL)
		return; /* at exit there is no one to tell; nothing was created there either */
	/* Failures of unlinkat (gone already) and closedir leave nothing to do at exit. */
	while ((entry = readdir(dir)) != NULL)
		if (strncmp(entry->d_name, prefix, prefix_len) == 0)
			(void)unlinkat(dirfd(dir), entry->d_name, 0);
	(void)closedir(dir);
}

static pthread_once_t fr_shm_cleanup_once = PTHREAD_ONCE_INIT;

static void fr_shm_register_cleanup(void)
{
	if (atexit(fr_shm_unlink_own_regions) != 0)
		fprintf(stderr, "libfastrmi: atexit failed: shm regions stay in /dev/shm after exit\n");
}

/*
 * libfabric's shm provider installs handlers for SIGINT, SIGBUS, SIGSEGV and SIGTERM with its
 * first endpoint, to unlink its regions on a crash. In a JVM they replace the JVM's own, and
 * the JVM raises SIGSEGV on purpose (implicit null checks): the first one unlinked our region,
 * and a peer that mapped it afterwards crashed inside libfabric. The process keeps the handlers
 * it had; our regions are removed at exit, and a crashed process's by fr_shm_sweep_dead_regions.
 */
static const int fr_kept_signals[] = { SIGINT, SIGBUS, SIGSEGV, SIGTERM };
static pthread_mutex_t fr_signal_lock = PTHREAD_MUTEX_INITIALIZER;

static int fr_ofi_endpoint_keeping_signals(struct fr_ofi *ofi, char *err, size_t errlen)
{
	struct sigaction kept[sizeof(fr_kept_signals) / sizeof(fr_kept_signals[0])];
	size_t n = sizeof(fr_kept_signals) / sizeof(fr_kept_signals[0]), i;
	int ret;

	pthread_mutex_lock(&fr_signal_lock);
	for (i = 0; i < n; i++) {
		if (sigaction(fr_kept_signals[i], NULL, &kept[i]) != 0) {
			fr_seterr(err, errlen, "sigaction(%s): %s", strsignal(fr_kept_signals[i]), strerror(errno));
			pthread_mutex_unlock(&fr_signal_lock);
			return FASTRMI_ERR_PROVIDER;
		}
	}
	ret = fi_endpoint(ofi->domain, ofi->info, &ofi->ep, NULL);
	for (i = 0; i < n; i++) {
		if (sigaction(fr_kept_signals[i], &kept[i], NULL) != 0 && ret == 0) {
			fr_seterr(err, errlen, "restoring the handler of %s after fi_endpoint: %s",
				  strsignal(fr_kept_signals[i]), strerror(errno));
			ret = -FI_EOTHER;
		}
	}
	pthread_mutex_unlock(&fr_signal_lock);
	if (ret == -FI_EOTHER)
		return FASTRMI_ERR_PROVIDER;
	if (ret != 0) {
		ofi->ep = NULL;
		return fr_ofi_fail(err, errlen, "fi_endpoint", ret);
	}
	return 0;
}

static _Atomic int64_t fr_shm_regions_swept; /* fr_sweep_due's clock for /dev/shm */

/* Removes our regions in /dev/shm whose processes are gone (fr_sweep_unheld: no one holds them). */
static void fr_shm_sweep_dead_regions(void)
{
	int dir_fd;

	if (!fr_sweep_due(&fr_shm_regions_swept))
		return;
	dir_fd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return; /* nothing swept: the next context tries again */
	fr_sweep_unheld(dir_fd, fr_is_fastrmi_region);
	(void)close(dir_fd); /* a directory opened for reading: nothing to lose */
}

/* Names our region before libfabric makes it (hints->src_addr): see fr_shm_region_prefix. */
static int fr_shm_name_region(struct fi_info *hints, char *err, size_t errlen)
{
	char name[96];
	size_t len;

	len = (size_t)snprintf(name, sizeof(name), FR_SHM_SCHEME);
	len += (size_t)fr_shm_region_prefix(name + len, sizeof(name) - len, (uint32_t)getpid());
	snprintf(name + len, sizeof(name) - len, "%u", fr_process_random());
	hints->addr_format = FI_ADDR_STR;
	hints->src_addr = strdup(name); /* freed with the hints */
	if (hints->src_addr == NULL) {
		fr_seterr(err, errlen, "out of memory for the shm region's name");
		return FASTRMI_ERR_NOMEM;
	}
	hints->src_addrlen = strlen(name) + 1;
	return 0;
}

/*
 * Holds a shared flock on our region (name: fi_getname's, NUL included) while the context lives,
 * so that a sweep of another process never takes it (fr_sweep_unheld).
 */
static int fr_shm_hold_region(struct fr_ofi *ofi, const char *name, char *err, size_t errlen)
{
	char path[128];

	if (strncmp(name, FR_SHM_SCHEME, sizeof(FR_SHM_SCHEME) - 1) != 0) {
		fr_seterr(err, errlen, "libfabric's shm named our region %s, not " FR_SHM_SCHEME "...", name);
		return FASTRMI_ERR_PROVIDER;
	}
	snprintf(path, sizeof(path), "/dev/shm/%s", name + sizeof(FR_SHM_SCHEME) - 1);
	ofi->region_fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (ofi->region_fd < 0) {
		fr_seterr(err, errlen, "open our shm region %s: %s", path, strerror(errno));
		return FASTRMI_ERR_PROVIDER;
	}
	if (flock(ofi->region_fd, LOCK_SH) != 0) {
		fr_seterr(err, errlen, "flock our shm region %s: %s", path, strerror(errno));
		return FASTRMI_ERR_PROVIDER;
	}
	return 0;
}

/*
 * The peers an shm context reaches in its life: its domain's ep_cnt, or fewer when the environment
 * says FASTRMI_OFI_SHM_PEERS=N (never more): tests of retiring full contexts get there with a few
 * processes.
 */
static unsigned fr_shm_peer_limit(size_t ep_cnt)
{
	const char *lower = getenv("FASTRMI_OFI_SHM_PEERS");
	unsigned long n;
	char *end;

	if (lower != NULL && lower[0] != '\0') {
		errno = 0;
		n = strtoul(lower, &end, 10);
		if (errno == 0 && *end == '\0' && n > 0 && n < ep_cnt)
			return (unsigned)n;
	}
	return ep_cnt > UINT_MAX ? UINT_MAX : (unsigned)ep_cnt;
}

static int fr_ofi_open(struct fastrmi_ctx *ctx, const char *provider, char *err, size_t errlen)
{
	struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC };
	struct fr_ofi *ofi;
	unsigned char *addr = ctx->addr;
	size_t name_len;
	uint32_t u32;
	uint16_t u16;
	int ret;

	if (provider == NULL || provider[0] == '\0') {
		fr_seterr(err, errlen, "ofi backend needs a libfabric provider name: %s (%d)",
			  fr_fi_strerror(FI_EINVAL), -FI_EINVAL);
		return FASTRMI_ERR_INVALID;
	}
	ofi = calloc(1, sizeof(*ofi));
	if (ofi == NULL) {
		fr_seterr(err, errlen, "out of memory");
		return FASTRMI_ERR_NOMEM;
	}
	ofi->kick_fd = -1;
	ofi->cq_fd = -1;
	ofi->region_fd = -1;
	ctx->ofi = ofi;

	if (fr_libfabric_load(err, errlen) != 0)
		return FASTRMI_ERR_PROVIDER;
	ofi->hints = fr_fi.dupinfo(NULL); /* fi_allocinfo */
	if (ofi->hints == NULL)
		return fr_ofi_fail(err, errlen, "fi_allocinfo", -FI_ENOMEM);
	ret = fr_ofi_fill_hints(ofi->hints, provider);
	if (ret != 0)
		return fr_ofi_fail(err, errlen, "strdup(provider)", ret);

	if (strcmp(provider, "shm") == 0 && pthread_once(&fr_shm_cleanup_once, fr_shm_register_cleanup) != 0) {
		fr_seterr(err, errlen, "pthread_once failed");
		return FASTRMI_ERR_PROVIDER;
	}
	if (strcmp(provider, "shm") == 0) {
		fr_shm_sweep_dead_regions();
		ret = fr_shm_name_region(ofi->hints, err, errlen);
		if (ret != 0)
			return ret;
	}
	ret = fr_fi.getinfo(FR_OFI_API_VERSION, NULL, NULL, 0, ofi->hints, &ofi->info);
	if (ret != 0) {
		ofi->info = NULL;
		fr_seterr(err, errlen, "fi_getinfo(provider \"%s\", " FR_OFI_HINTS_TEXT "): %s (%d)",
			  provider, fr_fi_strerror(-ret), ret);
		return FASTRMI_ERR_PROVIDER;
	}
	/* Only addresses we can check field by field are ever taken from a peer. */
	if (ofi->info->addr_format != FI_SOCKADDR_IN && ofi->info->addr_format != FI_SOCKADDR_IN6 &&
	    ofi->info->addr_format != FI_SOCKADDR &&
	    !(ofi->info->addr_format == FI_ADDR_STR && strcmp(provider, "shm") == 0)) {
		fr_seterr(err, errlen, "libfabric provider \"%s\" has address format %u, which FastRMI cannot check "
			  "in a peer's address (it takes sockaddrs and shm's names)", provider,
			  (unsigned)ofi->info->addr_format);
		return FASTRMI_ERR_PROVIDER;
	}
	ret = fr_fi.fabric(ofi->info->fabric_attr, &ofi->fabric, NULL);
	if (ret != 0) {
		ofi->fabric = NULL;
		return fr_ofi_fail(err, errlen, "fi_fabric", ret);
	}
	ret = fi_domain(ofi->fabric, ofi->info, &ofi->domain, NULL);
	if (ret != 0) {
		ofi->domain = NULL;
		return fr_ofi_fail(err, errlen, "fi_domain", ret);
	}
	ret = fr_ofi_open_cq(ofi, err, errlen);
	if (ret != 0)
		return ret;
	ret = fi_av_open(ofi->domain, &av_attr, &ofi->av, NULL);
	if (ret != 0) {
		ofi->av = NULL;
		return fr_ofi_fail(err, errlen, "fi_av_open", ret);
	}
	ret = fr_ofi_endpoint_keeping_signals(ofi, err, errlen);
	if (ret != 0)
		return ret;
	ret = fi_ep_bind(ofi->ep, &ofi->av->fid, 0);
	if (ret != 0)
		return fr_ofi_fail(err, errlen, "fi_ep_bind(av)", ret);
	ret = fi_ep_bind(ofi->ep, &ofi->cq->fid, FI_TRANSMIT | FI_RECV);
	if (ret != 0)
		return fr_ofi_fail(err, errlen, "fi_ep_bind(cq)", ret);
	ret = fi_enable(ofi->ep);
	if (ret != 0)
		return fr_ofi_fail(err, errlen, "fi_enable", ret);
	ofi->inject_size = ofi->info->tx_attr->inject_size;
	/*
	 * No receives in pieces (fr_rx_aim): tried with fi_trecvv, libfabric 1.17's rxm over tcp
	 * crashed in fi_close of a context one of whose streams had closed with such a receive
	 * posted and a peer's data unread (test_stream's reset case, 2026-12-07).
	 */
	ctx->recv_in_pieces = 0;
	/* shm's address vector holds as many peers as its domain has endpoints (SMR_MAX_PEERS), and
	 * we never reuse a place (keeps_idle_peers): that is this context's peers for life. */
	if (strcmp(provider, "shm") == 0) {
		ctx->peer_limit = fr_shm_peer_limit(ofi->info->domain_attr->ep_cnt);
		/* A sender killed holding our region's spin lock stops our progress for good: a region,
		 * and so a context, per peer keeps that to the dead peer's own streams. */
		ctx->peer_can_block_others = 1;
		ctx->may_spin_on_dead_peer = 1;
	}

	if (ofi->wait == FR_OFI_WAIT_FD) {
		ofi->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (ofi->kick_fd < 0) {
			fr_seterr(err, errlen, "eventfd: %s", strerror(errno));
			return FASTRMI_ERR_PROVIDER;
		}
	} else {
		ret = fr_doorbell_create(ofi, err, errlen);
		if (ret != 0)
			return ret;
		ctx->bell = ofi->bell;
		/* Up to inject_size a peer injects (fr_ofi_send): the message is in our queue when
		 * fi_tinject returns, and the peer rings after that. Larger ones may need more
		 * progress of ours (shm's SAR protocol), so their delivery rings too. */
		ctx->peer_rings_upto = ofi->inject_size;
		/*
		 * Every message is injected: shm completes a larger send (CMA, SAR) only when the
		 * receiver has written its answer in our region's response queue, which shm reads in
		 * order, so one receiver killed in the middle of a transfer never answers and every
		 * larger send of this context to anyone waited behind its answer for ever (issue 32).
		 * An injected message needs no answer: a dead peer holds nothing of ours.
		 */
		if (ofi->inject_size > sizeof(struct fr_msg_hdr) &&
		    ofi->inject_size - sizeof(struct fr_msg_hdr) < ctx->chunk)
			ctx->chunk = ofi->inject_size - sizeof(struct fr_msg_hdr);
	}

	name_len = FASTRMI_ADDRESS_MAX - FR_OFI_ADDR_HDR;
	ret = fi_getname(&ofi->ep->fid, addr + FR_OFI_ADDR_HDR, &name_len);
	if (ret != 0)
		return fr_ofi_fail(err, errlen, "fi_getname", ret);
	if (ofi->wait == FR_OFI_WAIT_DOORBELL) {
		if (name_len == 0 || addr[FR_OFI_ADDR_HDR + name_len - 1] != '\0') {
			fr_seterr(err, errlen, "libfabric's shm gave our endpoint a name of %zu bytes without its NUL", name_len);
			return FASTRMI_ERR_PROVIDER;
		}
		ret = fr_shm_hold_region(ofi, (const char *)addr + FR_OFI_ADDR_HDR, err, errlen);
		if (ret != 0)
			return ret;
	}
	addr[0] = FR_OFI_MAGIC;
	addr[1] = (unsigned char)ofi->wait;
	u32 = ofi->wait == FR_OFI_WAIT_DOORBELL ? (uint32_t)getpid() : 0;
	memcpy(addr + 2, &u32, 4);
	u32 = ofi->bell_number;
	memcpy(addr + 6, &u32, 4);
	u16 = (uint16_t)name_len;
	memcpy(addr + 10, &u16, 2);
	ctx->addr_len = FR_OFI_ADDR_HDR + name_len;
	return 0;
}

static int fr_ofi_peer_open(struct fastrmi_ctx *ctx, struct fr_peer *peer, char *err, size_t errlen)
{
	struct fr_ofi *ofi = ctx->ofi;
	const unsigned char *addr = peer->addr;
	const unsigned char *name = addr + FR_OFI_ADDR_HDR;
	uint32_t pid, number;
	uint16_t name_len;
	int ret, named;

	peer->fi_addr = FI_ADDR_NOTAVAIL;
	if (peer->addr_len < FR_OFI_ADDR_HDR || addr[0] != FR_OFI_MAGIC) {
		fr_seterr(err, errlen, "not an ofi context address (%zu bytes)", peer->addr_len);
		return FASTRMI_ERR_INVALID;
	}
	memcpy(&pid, addr + 2, 4);
	memcpy(&number, addr + 6, 4);
	memcpy(&name_len, addr + 10, 2);
	if (addr[1] != (unsigned char)ofi->wait || peer->addr_len != FR_OFI_ADDR_HDR + (size_t)name_len) {
		fr_seterr(err, errlen, "ofi context address of another provider or malformed");
		return FASTRMI_ERR_INVALID;
	}
	if (ofi->wait == FR_OFI_WAIT_DOORBELL)
		named = pid > 0 && number > 0 && fr_is_shm_name(name, name_len, pid);
	else
		named = pid == 0 && number == 0 && fr_is_sockaddr(name, name_len, ofi->info->addr_format);
	if (!named) {
		fr_seterr(err, errlen, "ofi context address has a malformed endpoint name (%u bytes)", (unsigned)name_len);
		return FASTRMI_ERR_INVALID;
	}
	if (ofi->wait == FR_OFI_WAIT_DOORBELL) {
		ret = fr_doorbell_open_peer(peer, pid, number, err, errlen);
		if (ret != 0)
			return ret;
		peer->pid = pid;
	}
	ret = fi_av_insert(ofi->av, name, 1, &peer->fi_addr, 0, NULL);
	if (ret != 1) {
		fr_bell_free(peer->bell);
		peer->bell = NULL;
		return fr_ofi_fail(err, errlen, "fi_av_insert(peer)", ret < 0 ? ret : -FI_EINVAL);
	}
	return 0;
}

static void fr_ofi_peer_close(struct fastrmi_ctx *ctx, struct fr_peer *peer)
{
	if (peer->fi_addr != FI_ADDR_NOTAVAIL)
		fr_ofi_report("fi_av_remove(peer)", fi_av_remove(ctx->ofi->av, &peer->fi_addr, 1, 0));
	fr_bell_free(peer->bell);
	peer->bell = NULL;
}

/* An idle peer keeps its address's place in the address vector, and nothing else: its doorbell
 * (a mapping, the pipes opened to it) goes now, and is mapped again when a stream to it opens. */
static void fr_ofi_peer_idle(struct fastrmi_ctx *ctx, struct fr_peer *peer)
{
	(void)ctx;
	fr_bell_free(peer->bell);
	peer->bell = NULL;
}

static int fr_ofi_peer_reuse(struct fastrmi_ctx *ctx, struct fr_peer *peer, char *err, size_t errlen)
{
	uint32_t pid, number;

	if (ctx->ofi->wait != FR_OFI_WAIT_DOORBELL || peer->bell != NULL)
		return 0;
	/* Checked when the peer was opened (fr_ofi_peer_open). */
	memcpy(&pid, peer->addr + 2, 4);
	memcpy(&number, peer->addr + 6, 4);
	return fr_doorbell_open_peer(peer, pid, number, err, errlen);
}

static int fr_ofi_post_recv(struct fastrmi_ctx *ctx, struct fr_rx *rx, uint64_t tag,
			    char *err, size_t errlen)
{
	ssize_t ret;

	ret = fi_trecv(ctx->ofi->ep, rx->buf, sizeof(rx->buf), NULL, FI_ADDR_UNSPEC, tag, 0,
		       &rx->op.fi);
	if (ret == -FI_EAGAIN)
		return 1;
	if (ret != 0)
		return fr_ofi_fail(err, errlen, "fi_trecv", (int)ret);
	return 0;
}

static void fr_ofi_cancel_recv(struct fastrmi_ctx *ctx, struct fr_rx *rx)
{
	/* On success the receive completes with FI_ECANCELED; if it cannot be cancelled it
	 * completes normally or not at all, and fastrmi_ctx_close frees it. */
	(void)fi_cancel(&ctx->ofi->ep->fid, &rx->op.fi);
}

/*
 * shm: whether the peer's process is gone, looked at before a send at most every
 * FR_OFI_ALIVE_LOOK_NSEC (a system call), and always when alive_nsec is 0. libfabric's shm sends
 * take a spin lock in the peer's region, which the peer holds while it works on the messages it
 * received: a peer killed then (kill -9 in the middle of a transfer) holds it forever, and a send
 * to it would spin forever, with the context's lock held, so that every stream of the context
 * stopped. A peer found gone fails (its streams with it) and is sent nothing more.
 */
#define FR_OFI_ALIVE_LOOK_NSEC 100000ull

static int fr_ofi_peer_gone(struct fastrmi_ctx *ctx, struct fr_peer *peer, char *err, size_t errlen)
{
	struct timespec ts;
	uint64_t now;
	char msg[160];

	if (peer->failed) {
		fr_seterr(err, errlen, "peer failed: %s", peer->fail_msg);
		return 1;
	}
	if (peer->pid == 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (peer->alive_nsec != 0 && now - peer->alive_nsec < FR_OFI_ALIVE_LOOK_NSEC)
		return 0;
	/* EPERM (not ours) or any other answer: a process of that pid is there. */
	if (kill((pid_t)peer->pid, 0) == 0 || errno != ESRCH) {
		peer->alive_nsec = now;
		return 0;
	}
	snprintf(msg, sizeof(msg), "the peer's process %u is gone (kill(%u, 0): %s)", peer->pid, peer->pid,
		 strerror(ESRCH));
	fr_seterr(err, errlen, "%s", msg);
	fr_peer_failed(ctx, peer, msg);
	return 1;
}

/* shm: the peer's process no longer exists (fastrmi_ctx_peers_gone; a reused pid counts as alive). */
static int fr_ofi_peer_is_gone(struct fastrmi_ctx *ctx, struct fr_peer *peer)
{
	(void)ctx;
	return peer->pid != 0 && kill((pid_t)peer->pid, 0) != 0 && errno == ESRCH;
}

static int fr_ofi_send(struct fastrmi_ctx *ctx, struct fr_peer *peer, uint64_t tag, struct fr_tx *tx,
		       size_t len, char *err, size_t errlen)
{
	struct fr_ofi *ofi = ctx->ofi;
	ssize_t ret;
	int done;

	if (fr_ofi_peer_gone(ctx, peer, err, errlen))
		return FASTRMI_ERR_PROVIDER;

	if (len <= ofi->inject_size) {
		/* Copied out by the provider: no completion, the buffer is free at once. */
		ret = fi_tinject(ofi->ep, tx->buf, len, peer->fi_addr, tag);
		done = 2;
	} else {
		ret = fi_tsend(ofi->ep, tx->buf, len, NULL, peer->fi_addr, tag, &tx->op.fi);
		done = 0;
	}
	if (ret == -FI_EAGAIN) {
		/* shm refuses the first send to a peer until the peer has taken the connection
		 * request it just queued there, and a full queue until the peer drains it: wake a
		 * peer asleep on its doorbell, or it would not look before its own next call. */
		if (peer->bell != NULL)
			fr_bell_ring_all(peer->bell);
		return 1;
	}
	if (ret != 0)
		return fr_ofi_fail(err, errlen, len <= ofi->inject_size ? "fi_tinject" : "fi_tsend", (int)ret);
	return done; /* stream.c rings the peer's doorbell */
}

static void fr_ofi_complete(struct fastrmi_ctx *ctx, void *op_context, int status, size_t len,
			    const char *msg)
{
	struct fr_op *op = op_context;

	if (op == NULL)
		return;
	if (op->kind == FR_OP_RX)
		fr_rx_done(ctx, (struct fr_rx *)op, status, len, msg);
	else
		fr_tx_done(ctx, (struct fr_tx *)op, status, msg);
}

static int fr_ofi_progress(struct fastrmi_ctx *ctx, char *err, size_t errlen)
{
	struct fr_ofi *ofi = ctx->ofi;
	struct fi_cq_tagged_entry entries[FR_OFI_CQ_BATCH];
	struct fi_cq_err_entry errent;
	char msg[200];
	const char *text;
	int count = 0;
	ssize_t n, i;

	while (count < FR_OFI_PROGRESS_MAX) {
		n = fi_cq_read(ofi->cq, entries, FR_OFI_CQ_BATCH);
		if (n == -FI_EAGAIN)
			break;
		if (n == -FI_EAVAIL) {
			memset(&errent, 0, sizeof(errent));
			n = fi_cq_readerr(ofi->cq, &errent, 0);
			if (n < 0)
				return fr_ofi_fail(err, errlen, "fi_cq_readerr", (int)n);
			text = fi_cq_strerror(ofi->cq, errent.prov_errno, errent.err_data, NULL, 0);
			snprintf(msg, sizeof(msg), "completion error: %s (%d): %s",
				 fr_fi_strerror(errent.err), -errent.err, text != NULL ? text : "");
			fr_ofi_complete(ctx, errent.op_context, -errent.err, 0, msg);
			count++;
			continue;
		}
		if (n < 0)
			return fr_ofi_fail(err, errlen, "fi_cq_read", (int)n);
		for (i = 0; i < n; i++)
			fr_ofi_complete(ctx, entries[i].op_context, 0, entries[i].len, NULL);
		count += (int)n;
	}
	return count;
}

/* The poller's wait, for FD mode only: a doorbell context's waiters sleep on its slots (stream.c). */
static int fr_ofi_arm(struct fastrmi_ctx *ctx, char *err, size_t errlen)
{
	struct fr_ofi *ofi = ctx->ofi;
	struct fid *fids[1] = { &ofi->cq->fid };
	int ret;

	ret = fi_trywait(ofi->fabric, fids, 1);
	if (ret == -FI_EAGAIN)
		return 1;
	if (ret != 0)
		return fr_ofi_fail(err, errlen, "fi_trywait(cq)", ret);
	return 0;
}

static void fr_ofi_block(struct fastrmi_ctx *ctx, int timeout_ms)
{
	struct fr_ofi *ofi = ctx->ofi;
	struct pollfd fds[2];
	uint64_t count;

	fds[0].fd = ofi->cq_fd;
	fds[0].events = POLLIN;
	fds[1].fd = ofi->kick_fd;
	fds[1].events = POLLIN;
	if (poll(fds, 2, timeout_ms) > 0 && (fds[1].revents & POLLIN))
		(void)!read(ofi->kick_fd, &count, sizeof(count));
}

static void fr_ofi_disarm(struct fastrmi_ctx *ctx)
{
	(void)ctx;
}

static void fr_ofi_kick(struct fastrmi_ctx *ctx)
{
	uint64_t one = 1;

	(void)!write(ctx->ofi->kick_fd, &one, sizeof(one));
}

const struct fr_backend fr_ofi_backend = {
	.name = "ofi",
	.keeps_idle_peers = 1,
	.open = fr_ofi_open,
	.close = fr_ofi_close,
	.peer_open = fr_ofi_peer_open,
	.peer_close = fr_ofi_peer_close,
	.peer_idle = fr_ofi_peer_idle,
	.peer_reuse = fr_ofi_peer_reuse,
	.peer_is_gone = fr_ofi_peer_is_gone,
	.post_recv = fr_ofi_post_recv,
	.cancel_recv = fr_ofi_cancel_recv,
	.send = fr_ofi_send,
	.progress = fr_ofi_progress,
	.arm = fr_ofi_arm,
	.block = fr_ofi_block,
	.disarm = fr_ofi_disarm,
	.kick = fr_ofi_kick,
};
