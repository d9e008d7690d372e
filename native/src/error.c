/* error.c - the error-message buffer every fallible API function fills in. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

void fr_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;

	va_start(ap, fmt);
	/* vsnprintf truncates and NUL-terminates; a negative return means an encoding error. */
	if (vsnprintf(err, errlen, fmt, ap) < 0)
		err[0] = '\0';
	va_end(ap);
}

void fr_clearerr(char *err, size_t errlen)
{
	if (err != NULL && errlen > 0)
		err[0] = '\0';
}

const char *fr_text(const char *msg)
{
	return msg != NULL ? msg : "(no message)";
}

void fr_report(const char *call, const char *why)
{
	fprintf(stderr, "libfastrmi: %s failed: %s\n", fr_text(call), fr_text(why));
}

void fr_report_errno(const char *call, int errnum)
{
	if (errnum != 0)
		fr_report(call, strerror(errnum));
}

int fr_check_init(int errnum, const char *call, char *err, size_t errlen)
{
	if (errnum == 0)
		return 0;
	fr_seterr(err, errlen, "%s failed: %s", fr_text(call), strerror(errnum));
	return errnum == ENOMEM || errnum == EAGAIN ? FASTRMI_ERR_NOMEM : FASTRMI_ERR_INVALID;
}

FASTRMI_API const char *fastrmi_strstatus(int status)
{
	switch ((enum fastrmi_status)status) {
	case FASTRMI_OK:
		return "FASTRMI_OK";
	case FASTRMI_ERR_TIMEOUT:
		return "FASTRMI_ERR_TIMEOUT";
	case FASTRMI_ERR_ABORTED:
		return "FASTRMI_ERR_ABORTED";
	case FASTRMI_ERR_CLOSED:
		return "FASTRMI_ERR_CLOSED";
	case FASTRMI_ERR_INVALID:
		return "FASTRMI_ERR_INVALID";
	case FASTRMI_ERR_NOMEM:
		return "FASTRMI_ERR_NOMEM";
	case FASTRMI_ERR_PROVIDER:
		return "FASTRMI_ERR_PROVIDER";
	case FASTRMI_ERR_PROTOCOL:
		return "FASTRMI_ERR_PROTOCOL";
	case FASTRMI_ERR_NOT_FOUND:
		return "FASTRMI_ERR_NOT_FOUND";
	case FASTRMI_ERR_RESET:
		return "FASTRMI_ERR_RESET";
	case FASTRMI_ERR_FULL:
		return "FASTRMI_ERR_FULL";
	}
	return "FASTRMI_UNKNOWN_STATUS";
}
