/* error.c - the error-message buffer every fallible API function fills in. */
#include <stdarg.h>
#include <stdio.h>

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
