/*
 * fastrmi.h - public API of libfastrmi.so, the native transport library of FastRMI.
 *
 * Java binds only the functions declared here (through the FFM API), never libfabric
 * or UCX directly. For now the library can say which backends work on this host;
 * the stream API (init, connect/accept, send, receive, wait, close) comes later.
 *
 * Conventions:
 *  - Functions that can fail return 0 on success and a negative number on failure:
 *    a negative libfabric errno (-FI_E*) for fastrmi_ofi_*, a ucs_status_t
 *    (UCS_ERR_*, all negative) for fastrmi_ucx_*.
 *  - On failure they write a NUL-terminated, human-readable message into the caller's
 *    buffer `err` of `errlen` bytes (truncated to fit; nothing is written when err is
 *    NULL or errlen is 0). The message ends with the provider's own text
 *    (fi_strerror / ucs_status_string). On success `err` is set to "".
 *  - Returned strings are static and owned by the library; never free them.
 */
#ifndef FASTRMI_H
#define FASTRMI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden; only FASTRMI_API symbols are exported. */
#if defined(__GNUC__)
#define FASTRMI_API __attribute__((visibility("default")))
#else
#define FASTRMI_API
#endif

/* Version of this library, e.g. "0.1.0" (set by the Makefile: make VERSION=x.y.z). */
FASTRMI_API const char *fastrmi_version(void);

/* ---- libfabric backend ---------------------------------------------------------- */

/*
 * Version of the libfabric loaded at run time, as fi_version() returns it:
 * major in the high 16 bits, minor in the low 16 bits (1.17 -> 0x00010011).
 */
FASTRMI_API uint32_t fastrmi_ofi_version(void);

/*
 * Is libfabric provider `provider` usable here with a reliable datagram endpoint
 * (FI_EP_RDM) that can send messages (FI_MSG)?
 *
 * `provider` is a libfabric provider name as fi_info -p takes it: a core provider
 * ("shm", "tcp", "verbs", "efa", ...) or a layered name ("tcp;ofi_rxm"). A core
 * provider without native RDM endpoints counts as found when libfabric offers it
 * under a utility provider: on libfabric 1.17, "tcp" is reported as "tcp;ofi_rxm".
 *
 * Returns 0 when found, else a negative libfabric errno (-FI_ENODATA when no such
 * provider matches, -FI_EINVAL for a NULL/empty name, ...) with a message in `err`.
 */
FASTRMI_API int fastrmi_ofi_probe(const char *provider, char *err, size_t errlen);

/* ---- UCX backend ---------------------------------------------------------------- */

/* Version of the UCX loaded at run time, e.g. "1.13.1" (ucp_get_version_string()). */
FASTRMI_API const char *fastrmi_ucx_version(void);

/*
 * Can UCX start here? Reads the UCX configuration (UCX_* environment variables),
 * creates a context with the stream and wakeup features and one single-threaded
 * worker, then destroys both.
 *
 * Returns 0 on success, else a (negative) ucs_status_t with a message in `err`.
 */
FASTRMI_API int fastrmi_ucx_probe(char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* FASTRMI_H */
