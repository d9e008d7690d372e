/*
 * libfabric.c - libfabric, opened at the first ofi probe or context instead of linked.
 *
 * Loading libfabric loads the libraries of all its providers, and on Debian 12 two of them
 * (libpsm2 and libinfinipath, under the psm providers) sleep 100 ms each in their
 * constructors looking for their hardware: linked, every JVM that loads libfastrmi.so -
 * one that uses only UCX or tcp too - waited 200 ms for its first fast connection.
 *
 * libinfinipath's constructor installs handlers of its own for SIGSEGV, SIGBUS, SIGINT and more
 * (it used to run at our load, before the JVM set its own); every handler the process had before
 * the load is put back after it.
 *
 * The symbols are asked for by the version a link against libfabric 1.x's headers binds
 * (fi_info's layout is that version's), not by whatever the library's default is; the
 * Makefile's test checks that the table in fr_fi_load_once still names what such a link binds.
 */
#define _GNU_SOURCE /* dlvsym */

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "internal.h"
#include "libfabric.h"

#define FR_FI_LIBRARY "libfabric.so.1"

struct fr_libfabric fr_fi;

static pthread_once_t fr_fi_once = PTHREAD_ONCE_INIT;
static atomic_int fr_fi_loaded;
static char fr_fi_error[512];

struct fr_fi_symbol {
	const char *name;
	const char *version;
	void **slot;
};

/* Puts back every signal handler that loading libfabric changed; the first failure goes to fr_fi_error. */
static int fr_fi_restore_signals(const struct sigaction *before, const int *had)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction now;

		if (!had[sig] || sigaction(sig, NULL, &now) != 0)
			continue;
		if (now.sa_handler == before[sig].sa_handler && now.sa_flags == before[sig].sa_flags)
			continue;
		if (sigaction(sig, &before[sig], NULL) != 0) {
			snprintf(fr_fi_error, sizeof(fr_fi_error), "loading %s changed the handler of %s, and putting "
				 "it back failed: %s", FR_FI_LIBRARY, strsignal(sig), strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void fr_fi_load_once(void)
{
	/* The Makefile's test reads the names and versions of this table. */
	const struct fr_fi_symbol symbols[] = {
		{ "fi_getinfo", "FABRIC_1.3", (void **)&fr_fi.getinfo },
		{ "fi_freeinfo", "FABRIC_1.3", (void **)&fr_fi.freeinfo },
		{ "fi_dupinfo", "FABRIC_1.3", (void **)&fr_fi.dupinfo },
		{ "fi_fabric", "FABRIC_1.1", (void **)&fr_fi.fabric },
		{ "fi_strerror", "FABRIC_1.0", (void **)&fr_fi.strerror },
		{ "fi_version", "FABRIC_1.0", (void **)&fr_fi.version },
	};
	static struct sigaction before[NSIG];
	static int had[NSIG];
	void *library;

	for (int sig = 1; sig < NSIG; sig++)
		had[sig] = sigaction(sig, NULL, &before[sig]) == 0; /* EINVAL: SIGKILL, SIGSTOP, glibc's own */
	library = dlopen(FR_FI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	if (fr_fi_restore_signals(before, had) != 0)
		return;
	if (library == NULL) {
		const char *why = dlerror();
		snprintf(fr_fi_error, sizeof(fr_fi_error), "cannot load %s: %s", FR_FI_LIBRARY,
			 why != NULL ? why : "dlopen failed");
		return;
	}
	for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		/* POSIX's way from dlsym's object pointer to a function pointer. */
		*symbols[i].slot = dlvsym(library, symbols[i].name, symbols[i].version);
		if (*symbols[i].slot == NULL) {
			const char *why = dlerror();
			snprintf(fr_fi_error, sizeof(fr_fi_error), "%s has no %s@%s: %s", FR_FI_LIBRARY,
				 symbols[i].name, symbols[i].version, why != NULL ? why : "not found");
			/* Left loaded: libfabric's providers do not promise a clean unload. */
			return;
		}
	}
	fr_fi_loaded = 1;
}

int fr_libfabric_load(char *err, size_t errlen)
{
	int ret = pthread_once(&fr_fi_once, fr_fi_load_once);

	if (ret != 0) {
		fr_seterr(err, errlen, "pthread_once(libfabric): %s (%d)", strerror(ret), ret);
		return -FI_ENOSYS;
	}
	if (!fr_fi_loaded) {
		fr_seterr(err, errlen, "%s", fr_fi_error);
		return -FI_ENOSYS;
	}
	return 0;
}

const char *fr_fi_strerror(int errnum)
{
	return fr_fi_loaded ? fr_fi.strerror(errnum) : strerror(errnum);
}
