/*
 * signals.c - keeps the libraries under libfastrmi.so off the JVM's signals and code.
 *
 * UCX (UCX_ERROR_SIGNALS) and the PSM/PSM2 libraries that libfabric's psm providers load
 * (IPATH_NO_BACKTRACE, HFI_NO_BACKTRACE) catch SIGSEGV and friends to print a backtrace and exit.
 * The JVM raises SIGSEGV on purpose (implicit null checks, safepoint polls), so with such a
 * handler in place a healthy JVM dies. UCX's memory hooks (UCX_MEM_EVENTS) rewrite libc's mmap
 * and its kin in place when UCX loads ("bistro" mode), and a JVM thread inside mmap at that
 * moment (starting a thread, growing its heap) runs half-written instructions: a worker JVM of an
 * ASP run here died so, SIGSEGV at __mmap+8, while the library loaded. FastRMI needs no hooks: its
 * buffers live as long as its contexts, and without them UCX registers memory for each transfer
 * instead of caching registrations. These libraries read the variables in their own constructors,
 * when they load, so this constructor runs first: the library is linked with -z initfirst, which
 * has the dynamic loader run it before those of the libraries it brings in. A variable the user
 * set is left as it is. Whatever binds the library (FFM or JNI) thus loads it safely.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const fr_signal_settings[][2] = {
	{ "UCX_ERROR_SIGNALS", "" },
	{ "UCX_MEM_EVENTS", "no" },
	{ "IPATH_NO_BACKTRACE", "1" },
	{ "HFI_NO_BACKTRACE", "1" },
};

/* The first setting that failed, and errno then: fastrmi_ctx_open refuses to open a context. */
static const char *fr_signal_setting_failed;
static int fr_signal_setting_errno;

__attribute__((constructor)) static void fr_keep_off_signals(void)
{
	for (size_t i = 0; i < sizeof(fr_signal_settings) / sizeof(fr_signal_settings[0]); i++) {
		if (setenv(fr_signal_settings[i][0], fr_signal_settings[i][1], 0) != 0) {
			fr_signal_setting_failed = fr_signal_settings[i][0];
			fr_signal_setting_errno = errno;
			return;
		}
	}
}

int fr_check_signal_settings(char *err, size_t errlen)
{
	if (fr_signal_setting_failed == NULL)
		return 0;
	fr_seterr(err, errlen, "setenv(%s) failed when libfastrmi.so loaded (%s): its libraries may catch the "
		  "JVM's signals or code", fr_signal_setting_failed, strerror(fr_signal_setting_errno));
	return FASTRMI_ERR_PROVIDER;
}
