/*
 * ofi.c - libfabric backend.
 *
 * For now only a probe: can libfabric open a reliable datagram endpoint (FI_EP_RDM)
 * with a given provider on this host?
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "internal.h"

/*
 * The libfabric API version we ask for. 1.9 is older than anything we rely on, so
 * the same libfastrmi.so works with any libfabric >= 1.9 found on a host (it is
 * linked against libfabric.so.1, whose ABI is stable across 1.x).
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
		fi_freeinfo(probe->info);
		probe->info = NULL;
	}
	if (probe->hints != NULL) {
		fi_freeinfo(probe->hints);
		probe->hints = NULL;
	}
}

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
	int ret;

	probe->hints = fi_allocinfo();
	if (probe->hints == NULL) {
		ret = -FI_ENOMEM;
		fr_seterr(err, errlen, "fi_allocinfo: %s (%d)", fi_strerror(-ret), ret);
		return ret;
	}

	probe->hints->caps = FI_MSG;
	probe->hints->ep_attr->type = FI_EP_RDM;
	probe->hints->fabric_attr->prov_name = strdup(provider);
	if (probe->hints->fabric_attr->prov_name == NULL) {
		ret = -FI_ENOMEM;
		fr_seterr(err, errlen, "strdup(provider): %s (%d)", fi_strerror(-ret), ret);
		return ret;
	}

	ret = fi_getinfo(FR_OFI_API_VERSION, NULL, NULL, 0, probe->hints, &probe->info);
	if (ret != 0) {
		fr_seterr(err, errlen,
			  "fi_getinfo(provider \"%s\", FI_EP_RDM, FI_MSG): %s (%d)",
			  provider, fi_strerror(-ret), ret);
		return ret;
	}
	if (probe->info == NULL) {
		/* Not expected from libfabric, but "success with no match" is not found. */
		ret = -FI_ENODATA;
		fr_seterr(err, errlen,
			  "fi_getinfo(provider \"%s\", FI_EP_RDM, FI_MSG): %s (%d)",
			  provider, fi_strerror(-ret), ret);
		return ret;
	}
	return 0;
}

FASTRMI_API uint32_t fastrmi_ofi_version(void)
{
	return fi_version();
}

FASTRMI_API int fastrmi_ofi_probe(const char *provider, char *err, size_t errlen)
{
	struct fr_ofi_probe probe = { 0 };
	int ret;

	if (provider == NULL || provider[0] == '\0') {
		ret = -FI_EINVAL;
		fr_seterr(err, errlen, "libfabric provider name is %s: %s (%d)",
			  provider == NULL ? "NULL" : "empty", fi_strerror(-ret), ret);
		return ret;
	}

	fr_clearerr(err, errlen);
	ret = fr_ofi_probe_open(&probe, provider, err, errlen);
	fr_ofi_probe_close(&probe);
	return ret;
}
