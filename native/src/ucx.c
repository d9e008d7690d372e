/*
 * ucx.c - UCX backend.
 *
 * For now only a probe: can UCX create a context (stream + wakeup features) and a
 * worker on this host?
 */
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
